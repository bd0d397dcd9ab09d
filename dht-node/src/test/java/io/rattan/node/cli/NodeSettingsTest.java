package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rattan node}'s settings from a config file and the environment ({@link NodeSettings}): precedence, what each
 * may not set, errors that say where a bad value came from, {@code --print-config}; and a node started from a file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeSettingsTest {

    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
        /** The {@code --print-config} line of {@code setting}: its value and its source. */
        String[] line(String setting) {
            for (String l : out.split("\n")) {
                String[] f = l.trim().split("\\s+", 3);
                if (f[0].equals(setting)) {
                    return new String[] {f[1], f[2]};
                }
            }
            throw new AssertionError("no line for " + setting + " in:\n" + out + err);
        }
    }

    private static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = RattanCli.run(args, env, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(exit, out.toString(), err.toString());
    }

    private Path file(String... lines) throws IOException {
        Path f = dir.resolve("node-" + lines.length + "-" + System.nanoTime() + ".properties");
        Files.write(f, List.of(lines));
        return f;
    }

    @Test
    void aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() throws IOException {
        String config = file("# a comment", "http-port = 5001", "gateway-port = 5101", "port=5201").toString();
        Map<String, String> env = Map.of("RATTAN_HTTP_PORT", "5002", "RATTAN_GATEWAY_PORT", "5102");

        Run r = run(env, "node", "--config", config, "--http-port", "5003", "--print-config");
        assertThat(r.exit).as(r.err).isZero();
        assertThat(r.line("http-port")).containsExactly("5003", "flag");
        assertThat(r.line("gateway-port")).containsExactly("5102", "environment RATTAN_GATEWAY_PORT");
        assertThat(r.line("port")).containsExactly("5201", "file " + config);
        assertThat(r.line("leaf-set-half")).containsExactly("8", "default");
        assertThat(r.line("config")).containsExactly(config, "flag");
        assertThat(r.err).isEmpty();

        Run fileOnly = run(Map.of("RATTAN_CONFIG", config), "node", "--print-config");
        assertThat(fileOnly.line("http-port")).containsExactly("5001", "file " + config);
        assertThat(fileOnly.line("config")).containsExactly(config, "environment RATTAN_CONFIG");
        assertThat(run(Map.of(), "node", "--print-config").line("http-port")).containsExactly("4080", "default");
    }

    @Test
    void listsBooleansAndWorkedOutDefaultsComeThroughAsFlagsDo() throws IOException {
        String config = file("bootstrap = 127.0.0.1:4000, 127.0.0.1:4003", "leaf-set-half = 2",
                "client-rate = 99").toString();
        Run r = run(Map.of("RATTAN_FSYNC", "true", "RATTAN_STORE_MAX_BYTES", "1000000"), "node", "--config", config,
                "--print-config");
        assertThat(r.exit).as(r.err).isZero();
        assertThat(r.line("bootstrap")[0]).isEqualTo("127.0.0.1:4000,127.0.0.1:4003");
        assertThat(r.line("fsync")).containsExactly("true", "environment RATTAN_FSYNC");
        assertThat(r.line("store-max-bytes")[0]).isEqualTo("1000000");
        assertThat(r.line("client-rate")).containsExactly("99", "file " + config);
        // k's default is worked out from the leaf set: 4, or leaf-set-half + 1 if smaller.
        assertThat(r.line("replicas")).containsExactly("3", "default");
    }

    @Test
    void faultInjectionIsFlagsOnlyAndUnknownNamesAreCaught() throws IOException {
        Run fromFile = run(Map.of(), "node", "--config", file("wan = planetlab").toString(), "--print-config");
        assertThat(fromFile.exit).isEqualTo(2);
        assertThat(fromFile.err).contains("'wan' is a flag only");

        Run typo = run(Map.of(), "node", "--config", file("http_port = 1").toString(), "--print-config");
        assertThat(typo.exit).isEqualTo(2);
        assertThat(typo.err).contains("'http_port' is no setting of rattan node", "e.g. http-port");

        Run env = run(Map.of("RATTAN_SLOW_TRACE", "/tmp/t", "RATTAN_HTTP_PROT", "1", "RATTAN_CDS_DIR", "/tmp",
                "RATTAN_BUILD_SUFFIX", "x"), "node", "--print-config");
        assertThat(env.exit).as(env.err).isZero();
        assertThat(env.err).contains("warning: RATTAN_SLOW_TRACE: --slow-trace is a flag only; ignored",
                "warning: RATTAN_HTTP_PROT names no setting of rattan node; ignored")
                .doesNotContain("RATTAN_CDS_DIR", "RATTAN_BUILD_SUFFIX");
        assertThat(env.line("slow-trace")).containsExactly("-", "default");

        Run missing = run(Map.of(), "node", "--config", dir.resolve("nope.properties").toString());
        assertThat(missing.exit).isEqualTo(2);
        assertThat(missing.err).contains("cannot read config file", "no such file");
    }

    @Test
    void aBadValueSaysWhereItCameFromAndAFlagStillOverridesIt() throws IOException {
        Run r = run(Map.of("RATTAN_HTTP_PORT", "eighty"), "node", "--print-config");
        assertThat(r.exit).isEqualTo(2);
        assertThat(r.err).contains("eighty", "(from environment RATTAN_HTTP_PORT)");

        String config = file("leaf-set-half = 40").toString();
        Run invalid = run(Map.of(), "node", "--config", config, "--print-config");
        assertThat(invalid.exit).isEqualTo(2);
        assertThat(invalid.err).contains("leafSetHalf must be 1..32");

        Run overridden = run(Map.of("RATTAN_HTTP_PORT", "eighty"), "node", "--http-port", "4090", "--print-config");
        assertThat(overridden.exit).as(overridden.err).isZero();
        assertThat(overridden.line("http-port")).containsExactly("4090", "flag");
    }

    @Test
    void bindAndAdvertiseDefaultToTheHostAndAWildcardBindNeedsAnAdvertisedAddress() {
        Run plain = run(Map.of(), "node", "--host", "127.0.0.5", "--print-config");
        assertThat(plain.line("bind")).containsExactly("127.0.0.5", "default");
        assertThat(plain.line("advertise")).containsExactly("127.0.0.5", "default");

        Run wildcard = run(Map.of("RATTAN_ADVERTISE", "10.1.2.3"), "node", "--bind", "0.0.0.0", "--print-config");
        assertThat(wildcard.exit).as(wildcard.err).isZero();
        assertThat(wildcard.line("bind")).containsExactly("0.0.0.0", "flag");
        assertThat(wildcard.line("advertise")).containsExactly("10.1.2.3", "environment RATTAN_ADVERTISE");

        Run unsaid = run(Map.of(), "node", "--bind", "::", "--print-config");
        assertThat(unsaid.exit).isEqualTo(2);
        assertThat(unsaid.err).contains("--bind :: listens on every interface: say --advertise");
        Run wildAdvertised = run(Map.of(), "node", "--bind", "0.0.0.0", "--advertise", "0.0.0.0", "--print-config");
        assertThat(wildAdvertised.exit).isEqualTo(2);
        assertThat(wildAdvertised.err).contains("is a wildcard");
        Run named = run(Map.of(), "node", "--bind", "eth0", "--advertise", "10.1.2.3", "--print-config");
        assertThat(named.exit).isEqualTo(2);
        assertThat(named.err).contains("bind address 'eth0' is not an IP literal");
        Run hostGiven = run(Map.of("RATTAN_HOST", "10.1.2.4"), "node", "--bind", "0.0.0.0", "--print-config");
        assertThat(hostGiven.exit).as("a --host given says where peers reach the node").isZero();
        assertThat(hostGiven.line("advertise")).containsExactly("10.1.2.4", "default");
        Run wildV6 = run(Map.of(), "node", "--bind", "0.0.0.0", "--advertise", "::0", "--print-config");
        assertThat(wildV6.exit).isEqualTo(2);
        assertThat(wildV6.err).contains("is a wildcard");
        Run families = run(Map.of(), "node", "--bind", "0.0.0.0", "--advertise", "fd00::5", "--print-config");
        assertThat(families.exit).isEqualTo(2);
        assertThat(families.err).contains("listens on IPv4 only");
    }

    @Test
    void theAdminPortAndWhatTheHttpGatewayServesAreSettings() {
        Run defaults = run(Map.of(), "node", "--print-config");
        assertThat(defaults.line("admin-port")).containsExactly("-", "default");
        assertThat(defaults.line("http-serves")).containsExactly("metrics,node,admin", "default");

        Run set = run(Map.of("RATTAN_HTTP_SERVES", "metrics,node"), "node", "--admin-port", "4090", "--print-config");
        assertThat(set.exit).as(set.err).isZero();
        assertThat(set.line("admin-port")).containsExactly("4090", "flag");
        assertThat(set.line("http-serves")).containsExactly("metrics,node", "environment RATTAN_HTTP_SERVES");

        Run bad = run(Map.of(), "node", "--http-serves", "metrics,keys", "--print-config");
        assertThat(bad.exit).isEqualTo(2);
        assertThat(bad.err).contains("unknown endpoint 'keys'");
        Run negative = run(Map.of(), "node", "--admin-port", "-1", "--print-config");
        assertThat(negative.exit).isEqualTo(2);
        assertThat(negative.err).contains("--admin-port must be 0..65535");
        Run clash = run(Map.of(), "node", "--admin-port", "4080", "--print-config");
        assertThat(clash.exit).isEqualTo(2);
        assertThat(clash.err).contains("the admin port must differ");
    }

    /** The real path: {@code rattan node --config FILE} runs a node on the file's ports and data directory. */
    @Test
    void aNodeStartedFromAConfigFileServesOnItsSettings() throws Exception {
        Path data = dir.resolve("from-config");
        String config = file("single-node = true", "port = 0", "gateway-port = 0", "http-port = 0",
                "data-dir = " + data.toString().replace("\\", "\\\\")).toString();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        AtomicInteger exit = new AtomicInteger(-1);
        Thread node = new Thread(() -> exit.set(RattanCli.run(new String[] {"node", "--config", config},
                Map.of("RATTAN_CLIENT_RATE", "500"), new PrintWriter(out, true), new PrintWriter(err, true))));
        node.start();
        try {
            Pattern http = Pattern.compile("http http://(\\S+) data (\\S+)");
            await().atMost(Duration.ofSeconds(30)).until(() -> http.matcher(out.toString()).find() || !node.isAlive());
            Matcher m = http.matcher(out.toString());
            assertThat(m.find()).as("the node's first line; stderr: %s", err).isTrue();
            assertThat(Path.of(m.group(2))).isEqualTo(data);
            assertThat(data.resolve("node-id")).exists();

            HttpClient client = HttpClient.newHttpClient();
            String key = "http://" + m.group(1) + "/v1/keys/name:configured";
            HttpResponse<String> put = client.send(HttpRequest.newBuilder(URI.create(key))
                    .POST(HttpRequest.BodyPublishers.ofString("from a file")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
            HttpResponse<String> get = client.send(HttpRequest.newBuilder(URI.create(key)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).contains("ZnJvbSBhIGZpbGU");
        } finally {
            node.interrupt();
            node.join(30_000);
        }
        assertThat(node.isAlive()).isFalse();
        assertThat(exit.get()).isZero();
    }

    @Test
    void everySettingHasAnEnvironmentName() {
        List<String> names = new ArrayList<>();
        for (String flag : List.of("--http-port", "--leaf-set-half", "--client-storage-bytes")) {
            names.add(NodeSettings.envOf(flag));
            assertThat(NodeSettings.flagOf(NodeSettings.envOf(flag))).isEqualTo(flag);
        }
        assertThat(names).containsExactly("RATTAN_HTTP_PORT", "RATTAN_LEAF_SET_HALF", "RATTAN_CLIENT_STORAGE_BYTES");
    }
}
