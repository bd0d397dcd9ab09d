package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.identity.NodeIdFile;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.netty.TransportListener.DropReason;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RattanNodeUnitTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Nested
    class Options {

        @Test
        void localIsLoopbackWithFreePortsAndNoBootstrap() {
            NodeOptions o = NodeOptions.local(dir);
            assertThat(o.host()).isEqualTo("127.0.0.1");
            assertThat(List.of(o.peerPort(), o.gatewayPort(), o.httpPort())).containsOnly(0);
            assertThat(o.bootstrap()).isEmpty();
            assertThat(o.config()).isEqualTo(NodeConfig.defaults());
            assertThat(o.dataDir()).isEqualTo(dir);
        }

        @Test
        void withersChangeOneThing() {
            NodeOptions o = NodeOptions.local(dir);
            Address peer = new Address("127.0.0.1", 7000);
            NodeConfig small = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);

            assertThat(o.withBootstrap(List.of(peer)).bootstrap()).containsExactly(peer);
            assertThat(o.withConfig(small).config()).isEqualTo(small);
            NodeOptions ported = o.withPorts(7001, 7002, 7003);
            assertThat(List.of(ported.peerPort(), ported.gatewayPort(), ported.httpPort()))
                    .containsExactly(7001, 7002, 7003);
            assertThat(ported.withBootstrap(List.of(peer)).withPorts(0, 0, 0))
                    .isEqualTo(o.withBootstrap(List.of(peer)));
        }

        @Test
        void bootstrapIsCopied() {
            java.util.ArrayList<Address> peers = new java.util.ArrayList<>(List.of(new Address("10.0.0.1", 1)));
            NodeOptions o = NodeOptions.local(dir).withBootstrap(peers);
            peers.clear();
            assertThat(o.bootstrap()).hasSize(1);
        }

        @Test
        void rejectsWhatCannotWork() {
            NodeOptions o = NodeOptions.local(dir);
            NodeConfig c = NodeConfig.defaults();
            assertThatThrownBy(() -> new NodeOptions(" ", 0, 0, 0, dir, List.of(), c))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> o.withHost("0.0.0.0")).hasMessageContaining("wildcard");
            assertThatThrownBy(() -> o.withHost("::")).hasMessageContaining("wildcard");
            assertThatThrownBy(() -> o.withPorts(-1, 0, 0)).hasMessageContaining("peerPort");
            assertThatThrownBy(() -> o.withPorts(0, 65536, 0)).hasMessageContaining("gatewayPort");
            assertThatThrownBy(() -> o.withPorts(7000, 7000, 0)).hasMessageContaining("differ");
            assertThatThrownBy(() -> o.withPorts(0, 7000, 7000)).hasMessageContaining("differ");
            assertThatThrownBy(() -> o.withDataDir(null)).hasMessageContaining("dataDir");
            assertThatThrownBy(() -> o.withConfig(null)).hasMessageContaining("config");
            assertThatThrownBy(() -> o.withBootstrap(null)).hasMessageContaining("bootstrap");
            assertThatThrownBy(() -> o.withBootstrap(Collections.singletonList(null)))
                    .hasMessageContaining("null");
            assertThatThrownBy(() -> o.withBootstrap(Collections.nCopies(65, new Address("h", 1))))
                    .hasMessageContaining("at most 64");
        }
    }

    @Nested
    class Identity {

        @Test
        void createsAKeyOnceReadsItBackAndRecordsItsId() throws IOException {
            NodeKey created = NodeKeyFile.loadOrCreate(dir, new SplittableRandom(1));
            Path keyFile = dir.resolve(NodeKeyFile.FILE_NAME);

            assertThat(Files.readString(dir.resolve(NodeIdFile.FILE_NAME))).isEqualTo(created.id().toHex() + "\n");
            assertThat(Files.readString(keyFile)).startsWith("-----BEGIN PRIVATE KEY-----");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile))).isEqualTo("rw-------");
            assertThat(NodeKeyFile.loadOrCreate(dir, new SplittableRandom(2)).id()).isEqualTo(created.id());
            try (var files = Files.list(dir)) {
                assertThat(files).containsExactlyInAnyOrder(keyFile, dir.resolve(NodeIdFile.FILE_NAME),
                        dir.resolve(NodeKeyFile.REQUIRED_MARK));
            }
            assertThatThrownBy(() -> NodeKeyFile.write(keyFile, NodeKey.draw(new SplittableRandom(3))))
                    .isInstanceOf(FileAlreadyExistsException.class);
        }

        @Test
        void refusesACorruptKeyAndOneOthersCanRead() throws IOException {
            Path keyFile = dir.resolve(NodeKeyFile.FILE_NAME);
            Files.writeString(keyFile, "not a key\n");
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
            assertThatThrownBy(() -> NodeKeyFile.loadOrCreate(dir, new SplittableRandom(1)))
                    .isInstanceOf(IOException.class).hasMessageContaining("holds no Ed25519 private key");
            assertThat(Files.readString(keyFile)).isEqualTo("not a key\n");

            Files.delete(keyFile);
            NodeKeyFile.write(keyFile, NodeKey.draw(new SplittableRandom(1)));
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r--r--"));
            assertThatThrownBy(() -> NodeKeyFile.loadOrCreate(dir, new SplittableRandom(1)))
                    .isInstanceOf(IOException.class).hasMessageContaining("is open to others (rw-r--r--): chmod 600");
        }

        @Test
        void aKeyOwnedByRootMayBeReadByAGroupOfThisProcessAsAKubernetesSecretIs() throws IOException {
            Path keyFile = dir.resolve("ca.key");
            NodeKeyFile.write(keyFile, NodeKey.draw(new SplittableRandom(2)));
            Assumptions.assumeTrue(Integer.valueOf(0).equals(Files.getAttribute(keyFile, "unix:uid")),
                    "only root makes files owned by root");
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("r--r-----"));
            assertThat(NodeKeyFile.read(keyFile, "the CA key")).isPresent();
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("r--rw----"));
            assertThatThrownBy(() -> NodeKeyFile.read(keyFile, "the CA key")).hasMessageContaining(
                    "the CA key " + keyFile + " is open to others (r--rw----)");
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("r--r--r--"));
            assertThatThrownBy(() -> NodeKeyFile.read(keyFile, "the CA key")).hasMessageContaining("open to others");
            // A group this process is not in (root's test JVM is not in 10001's) may not read it.
            Files.setAttribute(keyFile, "unix:gid", 10_001);
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("r--r-----"));
            assertThatThrownBy(() -> NodeKeyFile.read(keyFile, "the CA key")).hasMessageContaining("open to others");
        }

        @Test
        void aKeyLostFromADirectoryOfThisVersionStopsTheNodeUntilTheMarkIsDeleted() throws IOException {
            NodeKey created = NodeKeyFile.loadOrCreate(dir, new SplittableRandom(1));
            Files.delete(dir.resolve(NodeKeyFile.FILE_NAME));

            assertThatThrownBy(() -> NodeKeyFile.loadOrCreate(dir, new SplittableRandom(2)))
                    .isInstanceOf(IOException.class).hasMessageContaining("is missing")
                    .hasMessageContaining("restore node.key from a backup");
            assertThat(NodeIdFile.read(dir.resolve(NodeIdFile.FILE_NAME))).contains(created.id());

            Files.delete(dir.resolve(NodeKeyFile.REQUIRED_MARK));
            assertThat(NodeKeyFile.loadOrCreate(dir, new SplittableRandom(2)).id()).isNotEqualTo(created.id());
        }

        @Test
        void aDataDirectoryOfTheVersionBeforeGetsAKeyAndTheKeysId() throws IOException {
            Id old = Id.fromHex("00000000000000000000000000000000000000aa");
            NodeIdFile.write(dir.resolve(NodeIdFile.FILE_NAME), old);

            NodeKey key = NodeKeyFile.loadOrCreate(dir, new SplittableRandom(1));

            assertThat(key.id()).isNotEqualTo(old);
            assertThat(NodeIdFile.read(dir.resolve(NodeIdFile.FILE_NAME))).contains(key.id());
        }

        @Test
        void seedIsAFunctionOfTheId() {
            Id a = Id.ofName("a");
            Id b = Id.ofName("b");
            assertThat(RattanNode.seedOf(a)).isEqualTo(RattanNode.seedOf(Id.ofName("a")));
            assertThat(RattanNode.seedOf(a)).isNotEqualTo(RattanNode.seedOf(b));
        }
    }

    @Nested
    class Metrics {

        @Test
        void exportsRattanMetricsWithBoundedTags() {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            try (NodeMetrics metrics = new NodeMetrics(registry)) {
                metrics.clientRequestDone(MessageType.CLIENT_GET, Status.OK, 2_000_000, 3);
                metrics.clientRequestDone(MessageType.CLIENT_PUT, Status.TIMEOUT, 5_000_000_000L, 1);
                metrics.messageSent(MessageType.GET_REQUEST);
                metrics.messageSent(MessageType.GET_REQUEST);
                metrics.update(new NodeStatus(new Contact(Id.ofName("me"), new Address("127.0.0.1", 1)), true,
                        List.of(new Contact(Id.ofName("x"), new Address("127.0.0.1", 2))), List.of(1),
                        Collections.nCopies(7, new Contact(Id.ofName("y"), new Address("127.0.0.1", 3))), 42));
                metrics.peerTransport().bytesSent(100);
                metrics.peerTransport().bytesReceived(60);
                metrics.peerTransport().frameRejected();
                metrics.peerTransport().frameDropped(DropReason.UNWRITABLE);
                metrics.clientTransport().bytesReceived(5);

                String text = registry.scrape();
                assertThat(text)
                        .contains("rattan_gateway_requests_seconds_bucket{op=\"get\",status=\"ok\"")
                        .contains("rattan_gateway_requests_seconds_count{op=\"put\",status=\"timeout\"} 1")
                        .contains("rattan_gateway_hops_bucket{op=\"get\"")
                        .contains("rattan_messages_sent_total{type=\"get_request\"} 2.0")
                        .contains("rattan_store_records 42.0")
                        .contains("rattan_leafset_size 1.0")
                        .contains("rattan_routing_entries 7.0")
                        .contains("rattan_node_joined 1.0")
                        .containsPattern("rattan_build_info\\{java=\"[^\"]+\",protocol=\"" + BuildInfo.PROTOCOL
                                + "\",version=\"" + BuildInfo.VERSION + "\"} 1")
                        .contains("rattan_transport_bytes_sent_total{protocol=\"peer\"} 100.0")
                        .contains("rattan_transport_bytes_received_total{protocol=\"client\"} 5.0")
                        .contains("rattan_transport_frames_rejected_total{protocol=\"peer\"} 1.0")
                        .contains("rattan_transport_frames_dropped_total{reason=\"unwritable\"} 1.0");
                // A status never seen exports no series.
                assertThat(text).doesNotContain("status=\"forbidden\"");
            } finally {
                registry.close();
            }
        }
    }

    @Nested
    class SingleNode {

        @Test
        void servesPutAndGetAndKeepsItsIdAndDataAcrossARestart() throws IOException {
            Id key = Id.ofName("greeting");
            Bytes value = Bytes.utf8("hello");
            Contact first;
            try (RattanNode node = RattanNode.start(NodeOptions.singleNode(dir))) {
                first = node.contact();
                assertThat(first.address().port()).isPositive();
                assertThat(node.gatewayAddress().getPort()).isPositive();
                assertThat(node.httpAddress().getPort()).isPositive();
                assertThat(node.isJoined()).isTrue();

                Message put = node.request(new ClientPut(key, value, 600, Bytes.EMPTY)).join();
                assertThat(put).isInstanceOf(PutReply.class);
                assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
                assertThat(valuesOf(node.request(ClientGet.of(key).page(10, Bytes.EMPTY)).join())).containsExactly(value);

                NodeStatus status = node.status();
                assertThat(status.self()).isEqualTo(first);
                assertThat(status.storedRecords()).isEqualTo(1);
                assertThat(node.call(n -> n.self()).join()).isEqualTo(first);
                await().atMost(WAIT).until(() -> node.meterRegistry().scrape().contains("rattan_store_records 1.0"));
                assertThat(node.meterRegistry().scrape()).contains("rattan_gateway_requests_seconds_count");
                // A founder is ready at once; its start-to-ready times are then exported (no longer -1).
                await().atMost(WAIT).until(() -> startToReady(node.meterRegistry().scrape()) >= 0);
                assertThat(node.meterRegistry().scrape())
                        .doesNotContain("rattan_node_process_start_to_ready_millis -1.0");
            }

            try (RattanNode again = RattanNode.start(NodeOptions.singleNode(dir))) {
                assertThat(again.contact().id()).isEqualTo(first.id());
                Optional<StoredRecord> onDisk = again.readStore(key, value.sha256()).join();
                assertThat(onDisk).isPresent();
                assertThat(onDisk.get().value()).isEqualTo(value);
                assertThat(valuesOf(again.request(ClientGet.of(key).page(10, Bytes.EMPTY)).join()))
                        .containsExactly(value);
            }
        }

        @Test
        void answersTheBinaryClientProtocol() throws IOException {
            MessageCodec codec = new MessageCodec();
            Id key = Id.ofName("binary");
            try (RattanNode node = RattanNode.start(NodeOptions.singleNode(dir));
                 Socket socket = new Socket("127.0.0.1", node.gatewayAddress().getPort())) {
                socket.setSoTimeout(20_000);
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                DataInputStream in = new DataInputStream(socket.getInputStream());
                for (Envelope e : List.of(
                        new Envelope(null, 1, new ClientPut(key, Bytes.utf8("v"), 60, Bytes.EMPTY)),
                        new Envelope(null, 2, new Ping()))) {
                    byte[] body = codec.encode(e);
                    out.writeInt(body.length);
                    out.write(body);
                }
                out.flush();
                Envelope a = readFrame(in, codec);
                Envelope b = readFrame(in, codec);
                Envelope put = a.requestId() == 1 ? a : b;
                Envelope bad = a.requestId() == 1 ? b : a;
                assertThat(((PutReply) put.body()).status()).isEqualTo(Status.OK);
                assertThat(((ErrorReply) bad.body()).status()).isEqualTo(Status.BAD_REQUEST);
            }
        }

        @Test
        void closeAndHaltAreIdempotentAndAfterwardsRequestsAreRefused() throws IOException {
            RattanNode node = RattanNode.start(NodeOptions.local(dir));
            node.close();
            node.close();
            node.halt();
            assertThat(node.isRunning()).isFalse();
            assertThat(node.isJoined()).isFalse();
            Message reply = node.request(ClientGet.of(Id.ofName("k")).page(1, Bytes.EMPTY)).join();
            assertThat(reply).isEqualTo(new ErrorReply(Status.UNAVAILABLE, "node is not running"));
            assertThat(node.call(n -> 1)).failsWithin(WAIT);
        }

        @Test
        void aFailedStartReleasesEverything() throws IOException {
            try (RattanNode running = RattanNode.start(NodeOptions.local(dir.resolve("a")))) {
                int takenPort = running.contact().address().port();
                // The port is taken: the second node fails after opening its store, and must release it.
                assertThatThrownBy(() -> RattanNode.start(NodeOptions.local(dir.resolve("b"))
                        .withPorts(takenPort, 0, 0))).isInstanceOf(IOException.class);
                // Its store lock was released: the same directory opens now.
                try (RattanNode b = RattanNode.start(NodeOptions.local(dir.resolve("b")))) {
                    assertThat(b.isJoined()).isTrue();
                }
                // A second node on a directory in use fails on the store lock.
                assertThatThrownBy(() -> RattanNode.start(NodeOptions.local(dir.resolve("a"))))
                        .isInstanceOf(IOException.class);
                assertThat(running.isJoined()).isTrue();
            }
        }
    }

    @Nested
    class Cluster {

        private final NodeConfig config = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2)
                .withPeriods(200, 500, 1_000);

        @Test
        void startsJoinedNodesThatServeEachOthersValues() throws IOException {
            try (LocalCluster cluster = LocalCluster.start(4, dir, config)) {
                assertThat(cluster.nodes()).hasSize(4).allMatch(RattanNode::isJoined);
                Id key = Id.ofName("shared");
                Bytes value = Bytes.utf8("across the ring");
                Message put = cluster.node(0).request(new ClientPut(key, value, 600, Bytes.EMPTY)).join();
                assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
                for (RattanNode node : cluster.nodes()) {
                    assertThat(valuesOf(node.request(ClientGet.of(key).page(10, Bytes.EMPTY)).join()))
                            .containsExactly(value);
                }
            }
        }

        @Test
        void haltSendsNothingAndLeavesTheOthersRunning() throws IOException {
            try (LocalCluster cluster = LocalCluster.start(3, dir, config)) {
                RattanNode victim = cluster.node(1);

                cluster.halt(1);
                assertThat(victim.framesSentAfterHalt()).isZero();
                assertThat(victim.isRunning()).isFalse();
                assertThat(victim.isJoined()).isFalse();
                assertThat(cluster.liveNodes()).hasSize(2).doesNotContain(victim);
                assertThat(cluster.node(1)).isSameAs(victim);
                assertThat(cluster.node(0).isJoined()).isTrue();
                assertThat(cluster.node(2).isJoined()).isTrue();
                cluster.halt(1); // harmless twice
            }
        }

        @Test
        void restartAfterAGracefulCloseComesBackWithTheSameIdAndData() throws IOException {
            try (LocalCluster cluster = LocalCluster.start(3, dir, config)) {
                RattanNode before = cluster.node(0);
                Id key = Id.ofName("kept");
                Bytes value = Bytes.utf8("on disk");
                assertThat(((PutReply) before.request(new ClientPut(key, value, 600, Bytes.EMPTY)).join()).status())
                        .isEqualTo(Status.OK);
                // Acknowledged at W = 2: node 0's own copy may still be on its way.
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> before.readStore(key, value.sha256()).join().isPresent());

                RattanNode after = cluster.restart(0);
                assertThat(after).isNotSameAs(before);
                assertThat(before.isRunning()).isFalse();
                assertThat(after.contact().id()).isEqualTo(before.contact().id());
                assertThat(after.dataDir()).isEqualTo(before.dataDir());
                assertThat(after.readStore(key, value.sha256()).join()).isPresent();
                assertThat(cluster.liveNodes()).hasSize(3);
            }
        }

        @Test
        void restartAfterAHaltRejoins() throws IOException {
            try (LocalCluster cluster = LocalCluster.start(3, dir, config)) {
                RattanNode victim = cluster.node(1);
                cluster.halt(1);

                RattanNode back = cluster.restart(1);
                assertThat(back.contact().id()).isEqualTo(victim.contact().id());
                assertThat(back.isJoined()).isTrue();
                assertThat(cluster.node(1)).isSameAs(back);
            }
        }
    }

    private static List<Bytes> valuesOf(Message reply) {
        assertThat(reply).isInstanceOf(GetReply.class);
        GetReply get = (GetReply) reply;
        assertThat(get.status()).isEqualTo(Status.OK);
        return get.values().stream().map(ValueEntry::value).toList();
    }

    private static Envelope readFrame(DataInputStream in, MessageCodec codec) throws IOException {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return codec.decode(body);
    }

    private static double startToReady(String scrape) {
        return scrape.lines().filter(l -> l.startsWith("rattan_node_start_to_ready_millis "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))).findFirst().orElse(-1);
    }
}
