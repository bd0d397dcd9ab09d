package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.rattan.node.tls.ClusterCa;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
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
 * {@code --tls-dir DIR}, the one setting that turns a private cluster's TLS on: the CA for peers, the node's own
 * certificate on both client ports, and the client CA, tokens and revocation list where DIR holds them.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TlsDirTest {

    @TempDir
    Path dir;

    @Test
    void theDirectoryStandsForEveryTlsFlagAFlagOfItsOwnWins() throws IOException {
        Path tls = Files.createDirectories(dir.resolve("tls"));
        Files.writeString(tls.resolve(TlsDirFiles.CA), "");
        Files.writeString(tls.resolve(TlsDirFiles.TOKENS), "");
        Path data = dir.resolve("data");
        String out = print("node", "--tls-dir", tls.toString(), "--data-dir", data.toString(), "--client-ca",
                "/elsewhere/ca.crt", "--print-config");
        assertThat(value(out, "tls-ca")).isEqualTo(tls.resolve("ca.crt").toString());
        assertThat(value(out, "client-tls-cert")).isEqualTo(data.resolve("node.crt").toString());
        assertThat(value(out, "client-tls-key")).isEqualTo(data.resolve("node.key").toString());
        assertThat(value(out, "http-tokens")).isEqualTo(tls.resolve("tokens.txt").toString());
        assertThat(value(out, "client-ca")).as("the flag's").isEqualTo("/elsewhere/ca.crt");
        assertThat(value(out, "tls-revoked")).as("not in the directory").isEqualTo("-");

        assertThatThrownBy(() -> TlsDirFiles.in(dir)).hasMessageContaining("holds no ca.crt");
    }

    /** The real path: a node run with --tls-dir alone speaks HTTPS with its own certificate and asks for tokens. */
    @Test
    void aNodeGivenTheDirectoryAloneServesHttpsWithTokens() throws Exception {
        Path tls = dir.resolve("tls");
        ClusterCa ca = ClusterCa.create("tls-dir test", ClusterCa.VALIDITY_DEFAULT, new SecureRandom());
        ca.write(tls);
        Path data = dir.resolve("data");
        ca.certifyNode(data, ClusterCa.VALIDITY_DEFAULT, List.of("127.0.0.1"), new SecureRandom());
        String token = print("certs", "token", "--name", "app", "--tokens", tls.resolve(TlsDirFiles.TOKENS).toString())
                .trim();

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        AtomicInteger exit = new AtomicInteger(-1);
        Thread node = new Thread(() -> exit.set(RattanCli.run(new String[] {"node", "--tls-dir", tls.toString(),
                "--single-node", "--port", "0", "--gateway-port", "0", "--http-port", "0", "--data-dir",
                data.toString()}, Map.of(), new PrintWriter(out, true), new PrintWriter(err, true))));
        node.start();
        try {
            Pattern http = Pattern.compile("http http://(\\S+) data");
            await().atMost(Duration.ofSeconds(30)).until(() -> http.matcher(out.toString()).find() || !node.isAlive());
            Matcher m = http.matcher(out.toString());
            assertThat(m.find()).as("the node's first line; stderr: %s", err).isTrue();
            HttpClient https = HttpClient.newBuilder().sslContext(ca.trustingContext()).build();
            String key = "https://" + m.group(1) + "/v1/keys/name:tls-dir";
            HttpRequest.Builder put = HttpRequest.newBuilder(URI.create(key))
                    .POST(HttpRequest.BodyPublishers.ofString("one setting"));
            assertThat(https.send(put.build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
            HttpResponse<String> withToken = https.send(put.header("Authorization", "Bearer " + token).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(withToken.statusCode()).as(withToken.body()).isEqualTo(201);
            HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            assertThatThrownBy(() -> plain.send(HttpRequest.newBuilder(URI.create(key.replace("https", "http")))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()))
                    .as("plain HTTP is not served").isInstanceOf(IOException.class);
        } finally {
            node.interrupt();
            node.join(30_000);
        }
        assertThat(node.isAlive()).isFalse();
        assertThat(exit.get()).isZero();
    }

    private static String print(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = RattanCli.run(args, Map.of(), new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(exit).as(err.toString()).isZero();
        return out.toString();
    }

    private static String value(String printed, String setting) {
        for (String line : printed.split("\n")) {
            String[] f = line.trim().split("\\s+", 3);
            if (f[0].equals(setting)) {
                return f[1];
            }
        }
        throw new AssertionError("no line for " + setting + " in:\n" + printed);
    }
}
