package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.bench.harness.OpStats.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The OpenDHT adapter against answers recorded from a real OpenDHT proxy, and against a stub that gives them. */
class OpenDhtTargetTest {

    private static final String KEY = "4c45841ae3525530d2631adf64db6b9ace13d379";

    @TempDir
    Path runDir;

    @Test
    void readsTheValuesOfARecordedGetStream() throws IOException {
        assertThat(OpenDhtTarget.parseGet(recorded("get-two.ndjson")))
                .extracting(b -> new String(b, StandardCharsets.UTF_8))
                .containsExactly("hello world", "second");
        assertThat(OpenDhtTarget.parseGet(recorded("get-empty.ndjson"))).isEmpty();
    }

    @Test
    void theStubAnswersAsTheRecordedProxyDid() throws Exception {
        try (OpenDhtStub stub = new OpenDhtStub()) {
            HttpClient http = HttpClient.newHttpClient();
            String put = send(http, stub, KEY, "{\"data\":\"aGVsbG8gd29ybGQ=\",\"id\":42}");
            send(http, stub, KEY, "{\"data\":\"c2Vjb25k\",\"id\":43}");

            assertThat(put).isEqualTo(new String(recorded("put.json"), StandardCharsets.UTF_8));
            assertThat(send(http, stub, KEY, null)).isEqualTo(new String(recorded("get-two.ndjson"),
                    StandardCharsets.UTF_8));
            assertThat(send(http, stub, "0000000000000000000000000000000000000001", null)).isEqualTo(
                    new String(recorded("get-empty.ndjson"), StandardCharsets.UTF_8));
        }
    }

    @Test
    void theHarnessMeasuresOpenDhtThroughItsProxy() throws IOException {
        try (OpenDhtStub stub = new OpenDhtStub();
             OpenDhtTarget target = new OpenDhtTarget(List.of(stub.address()), Duration.ofSeconds(5))) {
            HarnessConfig config = new HarnessConfig(List.of(GetMode.parse(GetMode.OPENDHT)), 20, 2, 64,
                    Duration.ofMinutes(5), 0.2, 0, 4, 2, Duration.ofSeconds(2), Duration.ZERO, Duration.ofMillis(500),
                    Duration.ofSeconds(5), Duration.ofSeconds(5), 1);
            Harness harness = new Harness(config, target, runDir, "odht", System.out);
            harness.run();

            OpStats stats = harness.getStats().get(0);
            assertThat(stub.gets()).isPositive();
            assertThat(stats.count(Outcome.SUCCESS)).isEqualTo(stub.gets());
            assertThat(stats.count(Outcome.WRONG) + stats.count(Outcome.ERROR) + stats.count(Outcome.TIMEOUT))
                    .isZero();
        }
    }

    private static String send(HttpClient http, OpenDhtStub stub, String key, String postBody) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + stub.address() + "/key/" + key));
        if (postBody != null) {
            b.POST(HttpRequest.BodyPublishers.ofString(postBody));
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    private static byte[] recorded(String name) throws IOException {
        try (InputStream in = OpenDhtTargetTest.class.getResourceAsStream("/opendht/" + name)) {
            assertThat(in).as("test resource opendht/" + name).isNotNull();
            return in.readAllBytes();
        }
    }
}
