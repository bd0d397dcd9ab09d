package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.gateway.http.KeyParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rattan load} against real nodes (4 in this JVM: Netty, binary RPC, RocksDB): a file of 5,000 values is
 * stored and read back, malformed lines and refused puts are reported by line, usage errors exit 2.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoadCommandTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private static RattanClient client;

    @BeforeAll
    static void start() throws IOException {
        cluster = LocalCluster.start(4, dir.resolve("cluster"), CONFIG);
        client = RattanClient.builder().gateway(new Address("127.0.0.1", cluster.node(0).gatewayAddress().getPort()))
                .build();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** One line of a generated file: what it asks for. */
    private record Line(String key, byte[] value, Integer ttl, String secret) {

        String json() {
            ObjectNode o = JSON.createObjectNode().put("key", key).put("value",
                    Base64.getEncoder().encodeToString(value));
            if (ttl != null) {
                o.put("ttl", ttl);
            }
            if (secret != null) {
                o.put("secret", secret);
            }
            return o.toString();
        }
    }

    @Test
    void loadsFiveThousandValuesThatGetsReadBackAndSecretsRemove() throws IOException {
        SplittableRandom random = new SplittableRandom(37);
        List<Line> lines = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            byte[] value = new byte[1 + random.nextInt(300)];
            random.nextBytes(value);
            String key = i % 3 == 0 ? Id.ofName("hex-" + i).toHex() : "name:load/" + i;
            lines.add(new Line(key, value, i % 5 == 0 ? 600 + i % 100 : null, i % 4 == 0 ? "secret-" + i : null));
        }
        Path file = dir.resolve("values.ndjson");
        Files.write(file, lines.stream().map(Line::json).collect(Collectors.toList()));

        CliRun load = cli("load", file.toString(), "-g", gateways(), "--ttl", "1800");
        assertThat(load.exit()).as(load.out() + load.err()).isZero();
        assertThat(load.out()).contains("read        5,000 lines", "stored      5,000 values", "failed      0",
                "throughput");

        for (int n = 0; n < 50; n++) {
            Line line = lines.get(random.nextInt(lines.size()));
            int ttl = line.ttl() == null ? 1800 : line.ttl();
            GetResult.Value got = client.getSync(KeyParser.parseKey(line.key())).values().stream()
                    .filter(v -> Arrays.equals(v.bytes(), line.value())).findFirst().orElseThrow(
                            () -> new AssertionError("no value for " + line.key()));
            assertThat(got.ttlRemaining()).isBetween(Duration.ofSeconds(ttl - 120), Duration.ofSeconds(ttl));
        }
        Line secret = lines.get(8);
        Id key = KeyParser.parseKey(secret.key());
        Bytes hash = RattanClient.valueHash(secret.value());
        assertThat(client.removeSync(key, hash, utf8(secret.secret()), Duration.ofHours(1))).isTrue();
        await().atMost(WAIT).until(() -> client.getSync(key).values().isEmpty());
    }

    @Test
    void malformedLinesAndRefusedPutsAreReportedByLineAndTheRestIsStored() throws IOException {
        String big = Base64.getEncoder().encodeToString(new byte[2000]);
        List<String> lines = List.of(
                "{\"key\":\"name:bad-file/1\",\"value\":\"b25l\"}",
                "{\"key\":\"name:bad-file/2\",\"value\":",
                "{\"key\":\"name:bad-file/3\"}",
                "{\"key\":\"name:bad-file/4\",\"value\":\"!!not base64\"}",
                "{\"key\":\"abc\",\"value\":\"dg==\"}",
                "{\"key\":\"name:bad-file/6\",\"value\":\"dg==\",\"ttl\":0}",
                "{\"key\":\"name:bad-file/7\",\"value\":\"dg==\",\"secret\":\"\"}",
                "{\"key\":\"name:bad-file/8\",\"value\":\"" + big + "\"}",
                "{\"key\":\"name:bad-file/9\",\"value\":\"bmluZQ==\",\"ttl\":60,\"secret\":\"s\"}",
                "",
                "{\"key\":\"name:bad-file/11\",\"value\":\"\"}",
                "{\"key\":\"name:bad-file/12\",\"value\":\"dg==\",\"ttl\":9999999}",
                "{\"key\":\"name:bad-file/13\",\"value\":\"dg==\",\"tll\":5}",
                "{\"key\":\"name:bad-file/14\",\"value\":\"Zm91cnRlZW4\"}");
        Path file = dir.resolve("bad.ndjson");
        Files.write(file, lines);
        Path errors = dir.resolve("failed.ndjson");

        CliRun load = cli("load", file.toString(), "-g", gateways(), "--errors", errors.toString(), "-q");
        assertThat(load.exit()).as(load.out() + load.err()).isEqualTo(1);
        assertThat(load.out()).contains("read        13 lines", "stored      3 values", "failed      10 (",
                "line 2: bad JSON: ", "line 3: no value: ", "line 4: bad base64: ", "line 5: bad key: ",
                "line 6: bad ttl: ", "line 7: bad secret: ", "line 8 (key name:bad-file/8): TOO_LARGE: ",
                "line 11: empty value: ", "line 12: ttl above maximum: ", "line 13: unknown field: ",
                "every failed line is in " + errors);
        List<String> failed = new ArrayList<>(lines.subList(1, 8));
        failed.addAll(lines.subList(10, 13));
        assertThat(Files.readAllLines(errors)).containsExactlyInAnyOrderElementsOf(failed);
        assertThat(utf8Values("bad-file/1")).containsExactly("one");
        assertThat(utf8Values("bad-file/9")).containsExactly("nine");
        assertThat(utf8Values("bad-file/14")).containsExactly("fourteen");

        CliRun stopped = cli("load", file.toString(), "-g", gateways(), "-c", "1", "--stop-on-error", "-q");
        assertThat(stopped.exit()).isEqualTo(1);
        assertThat(stopped.out()).contains("read        2 lines", "failed      1 (bad JSON: 1)",
                "stopped after line 2 at the first failure");
    }

    @Test
    void usageErrorsExitTwo() throws IOException {
        Path file = Files.writeString(dir.resolve("one.ndjson"), "{\"key\":\"name:u\",\"value\":\"dQ==\"}\n");
        assertThat(cli("load").exit()).isEqualTo(2);
        CliRun missing = cli("load", dir.resolve("absent.ndjson").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("no such file");
        assertThat(cli("load", file.toString(), "--concurrency", "0").err()).contains("--concurrency must be");
        assertThat(cli("load", file.toString(), "--ttl", "0").exit()).isEqualTo(2);
        assertThat(cli("load", file.toString(), "--errors", file.toString()).err()).contains("FILE itself");
        assertThat(cli("load", "--help").out()).contains("Exits 0 only if every line was stored", "\"secret\"");
    }

    private static List<String> utf8Values(String name) {
        return client.getSync(RattanClient.key(name)).values().stream().map(GetResult.Value::utf8).toList();
    }

    private static String gateways() {
        return cluster.nodes().stream().map(RattanNode::gatewayAddress)
                .map(a -> "127.0.0.1:" + a.getPort()).collect(Collectors.joining(","));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static CliRun cli(String... args) {
        return CliRun.of(args);
    }
}
