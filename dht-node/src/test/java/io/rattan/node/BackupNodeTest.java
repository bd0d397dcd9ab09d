package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup taken through the admin route of a running node (real RocksDB, real HTTP), and a node started on it: the
 * same id, every value acknowledged before the backup, none put after it. And the route's refusals: a directory that
 * exists, a relative one, one inside the data directory.
 */
class BackupNodeTest {

    private static final int VALUES = 30;

    @TempDir
    Path dir;
    private RattanNode node;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void aNodeStartedOnABackupHoldsWhatWasAcknowledgedBeforeIt() throws Exception {
        node = RattanNode.start(NodeOptions.singleNode(dir.resolve("node")));
        String id = node.contact().id().toHex();
        for (int i = 0; i < VALUES; i++) {
            assertThat(send("POST", "/v1/keys/name:k" + i + "?ttl=600", "value " + i).statusCode()).isEqualTo(201);
        }
        Path backup = dir.resolve("backup");
        HttpResponse<String> taken = send("POST", "/admin/backup?dir=" + encoded(backup), null);
        assertThat(taken.statusCode()).as(taken.body()).isEqualTo(201);
        assertThat(Files.isDirectory(backup.resolve(RattanNode.STORE_DIR))).isTrue();
        assertThat(send("POST", "/v1/keys/name:after?ttl=600", "after").statusCode()).isEqualTo(201);
        node.close();

        node = RattanNode.start(NodeOptions.singleNode(backup));
        assertThat(node.contact().id().toHex()).isEqualTo(id);
        for (int i = 0; i < VALUES; i++) {
            HttpResponse<String> got = send("GET", "/v1/keys/name:k" + i, null);
            assertThat(got.statusCode()).isEqualTo(200);
            JsonNode values = NodeProcesses.JSON.readTree(got.body()).get("values");
            assertThat(values).as("k%d", i).hasSize(1);
            assertThat(values.get(0).get("value").asText()).isEqualTo(base64("value " + i));
        }
        assertThat(NodeProcesses.JSON.readTree(send("GET", "/v1/keys/name:after", null).body()).get("values"))
                .as("put after the backup").isEmpty();
    }

    @Test
    void aBackupGoesToANewAbsoluteDirectoryOutsideTheDataDirectory() throws Exception {
        Path data = dir.resolve("node");
        node = RattanNode.start(NodeOptions.singleNode(data));
        Files.createDirectory(dir.resolve("taken"));

        assertThat(send("POST", "/admin/backup?dir=" + encoded(dir.resolve("taken")), null).statusCode())
                .isEqualTo(409);
        assertThat(send("POST", "/admin/backup?dir=relative", null).statusCode()).isEqualTo(400);
        assertThat(send("POST", "/admin/backup?dir=" + encoded(data.resolve("inside")), null).statusCode())
                .isEqualTo(400);
        assertThat(send("POST", "/admin/backup", null).statusCode()).isEqualTo(400);
        assertThat(send("GET", "/admin/backup?dir=" + encoded(dir.resolve("get")), null).statusCode())
                .isEqualTo(405);
    }

    private HttpResponse<String> send(String method, String pathAndQuery, String body)
            throws IOException, InterruptedException {
        InetSocketAddress a = node.httpAddress();
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.getPort() + pathAndQuery))
                .timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private static String encoded(Path p) {
        return URLEncoder.encode(p.toAbsolutePath().toString(), StandardCharsets.UTF_8);
    }

    private static String base64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
