package io.rattan.examples;

import io.rattan.client.GetResult;
import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Puts a value, reads it back and removes it, through the gateways given as arguments
 * ({@code host:port} of nodes' binary gateways; default {@code 127.0.0.1:4001}).
 *
 * <pre>
 * ./rattan local --nodes 4       # prints the gateways
 * mvn -q -f examples compile exec:java -Dexec.mainClass=io.rattan.examples.HelloRattan -Dexec.args="127.0.0.1:PORT"
 * </pre>
 */
public final class HelloRattan {

    private HelloRattan() {
    }

    /** Runs the example through the gateways in {@code args}; exits 0 when it worked, else 1. */
    public static void main(String[] args) {
        List<String> gateways = args.length == 0 ? List.of("127.0.0.1:4001") : List.of(args);
        System.exit(run(gateways, System.out) ? 0 : 1);
    }

    /** The example itself: true when the value came back and was removed. */
    static boolean run(List<String> gateways, PrintStream out) {
        RattanClient.Builder builder = RattanClient.builder().totalTimeout(Duration.ofSeconds(10));
        gateways.forEach(builder::gateway);
        try (RattanClient client = builder.build()) {
            var key = RattanClient.key("greeting");
            byte[] secret = "s3cret".getBytes(StandardCharsets.UTF_8);
            PutResult put = client.putSync(key, "hello, rattan".getBytes(StandardCharsets.UTF_8),
                    Duration.ofMinutes(10), secret);
            out.println("put " + put.valueHash().toHex() + " on " + put.replicas() + " replicas");

            GetResult got = client.getSync(key);
            for (GetResult.Value v : got.values()) {
                out.println("got \"" + v.utf8() + "\" (" + v.ttlRemaining().toSeconds() + " s left)");
            }
            boolean found = got.values().stream().anyMatch(v -> v.utf8().equals("hello, rattan"));

            boolean removed = client.removeSync(key, put.valueHash(), secret, Duration.ofMinutes(10));
            out.println(removed ? "removed" : "not removed");
            return found && removed;
        } catch (RattanException e) {
            out.println(e.status() + ": " + e.getMessage());
            return false;
        }
    }
}
