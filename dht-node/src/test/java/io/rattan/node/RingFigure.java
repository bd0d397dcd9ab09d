package io.rattan.node;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The by-command figure of issue 37 (not a test): against a running cluster, {@code put N GATEWAY...} puts N keys;
 * {@code get N true|false GATEWAY...} makes a new client, with or without the ring (waiting for its first load), and
 * prints how many of its first N one-hop gets, one of each key, were answered with 0 hops: by the replica they were
 * sent to, one network hop from the client. Run with the test classpath, e.g.
 * {@code java -cp dht-node/target/test-classes:dht-node/target/dht-node-*-all.jar:... io.rattan.node.RingFigure}.
 */
public final class RingFigure {

    private static final GetOptions ONE_HOP = GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true);

    private RingFigure() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        boolean put = args[0].equals("put");
        boolean ring = !put && Boolean.parseBoolean(args[2]);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        RattanClient.Builder b = RattanClient.builder().loadRing(ring).meterRegistry(meters)
                .totalTimeout(Duration.ofSeconds(30));
        for (int i = put ? 2 : 3; i < args.length; i++) {
            b.gateway(args[i]);
        }
        try (RattanClient client = b.build()) {
            if (put) {
                for (int i = 0; i < n; i++) {
                    Id key = Id.ofName("ring-figure-" + i);
                    client.putSync(key, ("value " + i).getBytes(StandardCharsets.UTF_8), Duration.ofHours(1));
                }
                System.out.printf("put %d keys%n", n);
                return;
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (ring && loads(meters) < 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            int zero = 0;
            int found = 0;
            StringBuilder early = new StringBuilder();
            for (int i = 0; i < n; i++) {
                GetResult r = client.getSync(Id.ofName("ring-figure-" + i), ONE_HOP);
                zero += r.hops() == 0 ? 1 : 0;
                found += r.values().isEmpty() ? 0 : 1;
                if (i + 1 == 10 || i + 1 == 100) {
                    early.append(String.format("first %d: %d; ", i + 1, zero));
                }
            }
            System.out.printf("ring=%s: 0-hop gets among the %s%n", ring, early);
            double nodes = ring ? meters.get("rattan.client.ring.nodes").gauge().value() : 0;
            System.out.printf("ring=%s (nodes loaded %.0f): %d of %d first one-hop gets answered with 0 hops "
                    + "(%.1f %%); %d found a value%n", ring, nodes, zero, n, 100.0 * zero / n, found);
        }
    }

    private static double loads(SimpleMeterRegistry meters) {
        FunctionCounter c = meters.find("rattan.client.ring.loads").functionCounter();
        return c == null ? 0 : c.count();
    }
}
