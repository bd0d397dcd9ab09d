package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.wan.HostAssignment;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.node.transport.WanDelays;
import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wide area on one machine, measured from outside: a matrix of two hosts 80 ms apart without jitter, three real
 * nodes (round-robin, so nodes 0 and 2 share a host, 0.5 ms apart, and node 1 is on the other), and a client on node
 * 0's gateway. A get of a key whose only replica is node 1 crosses the 80 ms path and back; a get of a key whose only
 * replica is node 2 crosses the same steps on a 0.5 ms path. The difference of their round trips is the difference
 * of the paths' round trips, 79.5 ms, within 1 ms + 5% of the matrix's 80 ms: every cost but the emulated delay (the
 * client, the sockets, the threads' wake-ups, which on a loaded machine take milliseconds) is in both and cancels.
 * Medians of gets that alternate far and near, so both see the same load; and since the delays cannot be shorter
 * than the matrix says, no far get takes less than its round trip.
 */
class WanEmulationTest {

    private static final double RTT_MILLIS = 80;
    private static final int NODES = 3;
    private static final int GETS = 25;
    private static final int WARM_UP = 5;

    @TempDir
    Path dir;
    private final List<RattanNode> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        for (RattanNode n : nodes) {
            n.halt();
        }
    }

    @Test
    void aGetToANodeOnAFarHostTakesTheMatrixsRoundTripMore() throws Exception {
        LatencyMatrix matrix = LatencyMatrix.parse(new StringReader("0\t" + RTT_MILLIS + "\n" + RTT_MILLIS + "\t0\n"),
                "two-hosts.tsv");
        // Every node's delays name every node's peer address, so the ports are chosen before the nodes start.
        List<Address> peers = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            peers.add(new Address("127.0.0.1", freePort()));
        }
        // k = W = 1: a key's root alone holds it. Short periods: a replica settles (and stops reading the others
        // too) 2 s after its replica set last changed, not 10 s.
        NodeConfig config = NodeConfig.defaults().withReplicas(1, 1).withPeriods(200, 5_000, 10_000);
        for (int i = 0; i < NODES; i++) {
            NodeOptions o = NodeOptions.local(dir.resolve("n" + i)).withConfig(config)
                    .withPorts(peers.get(i).port(), 0, 0)
                    .withBootstrap(i == 0 ? List.of() : List.of(peers.get(0)))
                    .withPeerDelays(new WanDelays(matrix, peers, i, 1, 0));
            nodes.add(RattanNode.start(o));
        }
        RattanNode gateway = nodes.get(0);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> nodes.stream().allMatch(RattanNode::isJoined)
                && gateway.status().leafSet().size() == NODES - 1);
        WanDelays fromGateway = new WanDelays(matrix, peers, 0, 1, 0);
        assertThat(fromGateway.rttMillis(peers.get(1))).isEqualTo(RTT_MILLIS);
        assertThat(fromGateway.rttMillis(peers.get(2))).isEqualTo(HostAssignment.DEFAULT_INTRA_HOST_RTT_MILLIS);

        try (RattanClient client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", gateway.gatewayAddress().getPort())).build()) {
            Id far = nodes.get(1).contact().id();
            Id near = nodes.get(2).contact().id();
            for (Id key : List.of(far, near)) {
                byte[] value = key.toHex().getBytes(StandardCharsets.UTF_8);
                client.putSync(key, value, Duration.ofMinutes(5));
                RattanNode root = key.equals(far) ? nodes.get(1) : nodes.get(2);
                assertThat(root.readStore(key, RattanClient.valueHash(value)).join()).as("the key's root holds it")
                        .isPresent();
            }
            Duration settled = Duration.ofMillis(config.settlingMillis() + 500);
            Awaitility.await().pollDelay(settled).atMost(settled.plusSeconds(1)).until(() -> true);
            List<Double> farMillis = new ArrayList<>();
            List<Double> nearMillis = new ArrayList<>();
            for (int i = 0; i < WARM_UP + GETS; i++) {
                double farGet = getMillis(client, far);
                double nearGet = getMillis(client, near);
                if (i >= WARM_UP) {
                    farMillis.add(farGet);
                    nearMillis.add(nearGet);
                }
            }
            double farMedian = median(farMillis);
            double nearMedian = median(nearMillis);
            double expected = RTT_MILLIS - HostAssignment.DEFAULT_INTRA_HOST_RTT_MILLIS;
            double tolerance = 1 + 0.05 * RTT_MILLIS;
            System.out.printf("gets over an emulated %.1f ms path: median %.2f ms (min %.2f, max %.2f); over a "
                    + "%.1f ms path %.2f ms: the difference %.2f ms%n", RTT_MILLIS, farMedian, farMillis.get(0),
                    farMillis.get(GETS - 1), HostAssignment.DEFAULT_INTRA_HOST_RTT_MILLIS, nearMedian,
                    farMedian - nearMedian);
            assertThat(farMedian - nearMedian).as("median get over the far path %s ms, over the near one %s ms",
                    farMillis, nearMillis).isBetween(expected - tolerance, expected + tolerance);
            // A frame may leave with the one before it up to 0.2 ms early (DelayedTransport.SAME_BURST_NANOS), never
            // earlier: the request and the reply 0.4 ms together.
            assertThat(farMillis.get(0)).as("the quickest far get").isGreaterThanOrEqualTo(RTT_MILLIS - 0.4);
        }
    }

    /** One get's round trip at the client, in ms; an unhedged get, so that only one copy travels. */
    private static double getMillis(RattanClient client, Id key) throws Exception {
        long start = System.nanoTime();
        GetResult r = client.get(key, GetOptions.of(RoutingMode.GREEDY)).get();
        double millis = (System.nanoTime() - start) / 1e6;
        assertThat(r.values()).hasSize(1);
        return millis;
    }

    /** The median, sorting {@code values} in place. */
    private static double median(List<Double> values) {
        Collections.sort(values);
        return values.get(values.size() / 2);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
