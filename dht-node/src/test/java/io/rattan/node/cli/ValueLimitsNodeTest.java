package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.node.RattanNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --value-bytes-max} and {@code --ttl-seconds-max} on three real nodes started from their flags: a 64 KiB
 * value is put through one node's HTTP gateway, replicated, and read back whole from all three replicas through
 * another's; a byte more is 413, a TTL past the maximum 400.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ValueLimitsNodeTest {

    private static final int BIG = 64 * 1024;

    @TempDir
    Path dir;
    private final List<RattanNode> nodes = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        nodes.forEach(RattanNode::halt);
    }

    private RattanNode start(int i, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("node", "--port", "0", "--gateway-port", "0", "--http-port", "0",
                "--data-dir", dir.resolve("n" + i).toString(), "--value-bytes-max", Integer.toString(BIG),
                "--ttl-seconds-max", "120", "--replicas", "3"));
        args.addAll(Arrays.asList(more));
        NodeCommand command = (NodeCommand) RattanCli.commandLine().parseArgs(args.toArray(String[]::new))
                .subcommand().commandSpec().userObject();
        RattanNode node = RattanNode.start(command.options());
        nodes.add(node);
        return node;
    }

    private HttpResponse<String> send(RattanNode node, String method, String pathAndQuery, byte[] body)
            throws Exception {
        URI uri = URI.create("http://" + Addresses.of(node.httpAddress()) + pathAndQuery);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
        b = body == null ? b.GET() : b.method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aValueOf64KibIsStoredOnEveryReplicaAndALargerOneRefused() throws Exception {
        RattanNode first = start(0);
        String bootstrap = first.contact().address().toString();
        RattanNode second = start(1, "--bootstrap", bootstrap);
        RattanNode third = start(2, "--bootstrap", bootstrap);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> nodes.stream().allMatch(RattanNode::isJoined)
                && nodes.stream().allMatch(n -> n.status().leafSet().size() == 2));
        assertThat(third.status().leafSet()).hasSize(2);

        byte[] big = new byte[BIG];
        new Random(7).nextBytes(big);
        HttpResponse<String> put = send(first, "POST", "/v1/keys/name:big?ttl=120", big);
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);

        String encoded = Base64.getEncoder().encodeToString(big);
        // A quorum read of R = 3 merges all three replicas' records: the value is whole on each once it answers
        // with partial false.
        Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            HttpResponse<String> get = send(second, "GET", "/v1/keys/name:big?consistency=quorum&r=3", null);
            assertThat(get.statusCode()).as(get.body()).isEqualTo(200);
            assertThat(get.body()).contains("\"value\":\"" + encoded + "\"", "\"partial\":false");
        });

        HttpResponse<String> tooBig = send(second, "POST", "/v1/keys/name:bigger", new byte[BIG + 1]);
        assertThat(tooBig.statusCode()).as(tooBig.body()).isEqualTo(413);
        assertThat(tooBig.body()).contains(Integer.toString(BIG));
        HttpResponse<String> tooLong = send(second, "POST", "/v1/keys/name:long?ttl=121", new byte[] {1});
        assertThat(tooLong.statusCode()).as(tooLong.body()).isEqualTo(400);
    }

    @Test
    void limitsBeyondTheWireOrBelowOneAreUsageErrors() {
        String[][] cases = {
            {"--value-bytes-max", "65537", "--value-bytes-max must be 1..65536, got 65537"},
            {"--value-bytes-max", "0", "--value-bytes-max must be 1..65536, got 0"},
            {"--ttl-seconds-max", "0", "--ttl-seconds-max must be at least 1"},
            {"--request-timeout-ms", "0", "--request-timeout-ms must be at least 1"},
            {"--rto-min-ms", "2000", "need 0 < --rto-min-ms <= --rto-initial-ms <= --rto-max-ms, got 2000, 1000, 5000"},
        };
        for (String[] c : cases) {
            java.io.StringWriter err = new java.io.StringWriter();
            int exit = RattanCli.run(new String[] {"node", c[0], c[1], "--print-config"}, java.util.Map.of(),
                    new java.io.PrintWriter(new java.io.StringWriter()), new java.io.PrintWriter(err, true));
            assertThat(exit).as(c[0] + " " + c[1]).isEqualTo(2);
            assertThat(err.toString()).contains(c[2]);
        }
    }

    @Test
    void theStudysTimeoutsCanBeGivenToARealNode() {
        NodeCommand c = (NodeCommand) RattanCli.commandLine().parseArgs("node", "--request-timeout-ms", "10000",
                "--rto-initial-ms", "5000", "--rto-min-ms", "20").subcommand().commandSpec().userObject();
        io.rattan.core.node.NodeConfig config = c.options().config();
        assertThat(config.requestTimeoutMillis()).isEqualTo(10_000);
        assertThat(config.rtoInitialMillis()).isEqualTo(5_000);
        assertThat(config.rtoMinMillis()).isEqualTo(20);
        assertThat(config.rtoMaxMillis()).isEqualTo(5_000);
    }
}
