package io.rattan.bench.jmh;

import io.rattan.api.Address;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.node.NodeOptions;
import io.rattan.node.RattanNode;
import io.rattan.node.limits.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One get of a 1 KiB value through the binary RPC on loopback: the Java client, the Netty gateway, the node's loop
 * and RocksDB, one node (the answer comes from the gateway's own store), one get in flight.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LoopbackGetBenchmark {

    private static final Id KEY = Id.ofName("jmh-loopback");
    private static final GetOptions ONE_COPY = GetOptions.of(RoutingMode.DELAY_AWARE);

    private Path dir;
    private RattanNode node;
    private RattanClient client;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("rattan-jmh-get");
        // No client rate: one client here asks faster than the default per-client rate, which would measure its
        // back-off.
        node = RattanNode.start(NodeOptions.singleNode(dir)
                .withLimits(Limits.defaults().withClientRequestsPerSecond(Limits.OFF)));
        client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", node.gatewayAddress().getPort()))
                .build();
        client.putSync(KEY, new byte[1024], Duration.ofHours(1));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        client.close();
        node.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public GetResult get() throws InterruptedException, ExecutionException {
        return client.get(KEY, ONE_COPY).get();
    }
}
