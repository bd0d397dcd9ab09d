package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.id.Id;
import io.rattan.core.msg.GetOptions;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.net.Address;
import io.rattan.core.node.NodeConfig;
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
 * A wide area on one machine, measured from outside: two real nodes on two hosts 80 ms apart (a matrix without
 * jitter), a client on one node's gateway, and a far key whose only replica is the other node. A get of the far key
 * crosses to the other node and back once; a get of a near key, one the gateway holds itself, does not. Their
 * difference is the round trip between the two nodes, which must be the matrix's within 1 ms + 5%: the client's own
 * round trip to its gateway is no part of it, and on a loaded machine it alone takes milliseconds. Medians of gets
 * that alternate far and near, so both see the same load; a loaded machine may stall any one get, not most of them.
 */
class WanEmulationTest {

    private static final double RTT_MILLIS = 80;
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
    void aGetToTheOtherNodeTakesTheMatrixsRoundTrip() throws Exception {
        LatencyMatrix matrix = LatencyMatrix.parse(new StringReader("0\t" + RTT_MILLIS + "\n" + RTT_MILLIS + "\t0\n"),
                "two-hosts.tsv");
        // Every node's delays name every node's peer address, so the ports are chosen before the nodes start.
        List<Address> peers = List.of(new Address("127.0.0.1", freePort()), new Address("127.0.0.1", freePort()));
        // k = W = 1: the key's root alone holds it. Short periods: a replica settles (and stops reading the other
        // node too) 2 s after the replica set last changed, not 10 s.
        NodeConfig config = NodeConfig.defaults().withReplicas(1, 1).withPeriods(200, 5_000, 10_000);
        for (int i = 0; i < 2; i++) {
            NodeOptions o = NodeOptions.local(dir.resolve("n" + i)).withConfig(config)
                    .withPorts(peers.get(i).port(), 0, 0)
                    .withBootstrap(i == 0 ? List.of() : List.of(peers.get(0)))
                    .withPeerDelays(new WanDelays(matrix, peers, i, 1, 0));
            nodes.add(RattanNode.start(o));
        }
        RattanNode gateway = nodes.get(0);
        RattanNode root = nodes.get(1);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> root.isJoined()
                && gateway.status().leafSet().stream().anyMatch(c -> c.id().equals(root.contact().id())));
        Id key = root.contact().id();

        try (RattanClient client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", gateway.gatewayAddress().getPort())).build()) {
            Id far = root.contact().id();
            Id near = gateway.contact().id();
            client.putSync(far, "far".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(5));
            client.putSync(near, "near".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(5));
            assertThat(root.readStore(far, RattanClient.valueHash("far".getBytes(StandardCharsets.UTF_8))).join())
                    .as("the far key's replica is the other node").isPresent();
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
            double tolerance = 1 + 0.05 * RTT_MILLIS;
            System.out.printf("gets over an emulated %.0f ms path: median %.2f ms (min %.2f, max %.2f); at the "
                    + "gateway itself %.2f ms: the path adds %.2f ms%n", RTT_MILLIS, farMedian, farMillis.get(0),
                    farMillis.get(GETS - 1), nearMedian, farMedian - nearMedian);
            assertThat(farMedian - nearMedian).as("median get of the far key %s ms, of the near key %s ms", farMillis,
                    nearMillis).isBetween(RTT_MILLIS - tolerance, RTT_MILLIS + tolerance);
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
