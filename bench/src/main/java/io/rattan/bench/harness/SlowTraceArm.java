package io.rattan.bench.harness;

import io.rattan.api.Address;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * Re-arms the slow trace every node of a cluster replays ({@code cluster start --slow-trace}) so that its periods
 * count from a given moment, through each node's {@code POST /admin/slow-trace?start=EPOCH_MS}.
 */
final class SlowTraceArm {

    private SlowTraceArm() {
    }

    /** Arms every node's trace at {@code epochMillis}; names the first node that refuses. */
    static void arm(List<Address> httpNodes, long epochMillis) throws IOException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (int i = 0; i < httpNodes.size(); i++) {
            URI uri = URI.create("http://" + httpNodes.get(i) + "/admin/slow-trace?start=" + epochMillis);
            HttpRequest post = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.noBody()).build();
            try {
                HttpResponse<String> r = client.send(post, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IOException("node " + i + " (" + httpNodes.get(i) + ") did not re-arm its slow trace: "
                            + r.statusCode() + " " + r.body());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while arming the slow trace", e);
            }
        }
    }
}
