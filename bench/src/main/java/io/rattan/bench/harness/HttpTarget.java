package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.core.id.Id;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.net.Address;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rattan through its HTTP API ({@code docs}: DESIGN.md's table): each request goes to the next gateway in turn,
 * and the gateway node performs the mode (its own racing of gateways, hedging, one-hop).
 */
final class HttpTarget implements Target {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<Address> gateways;
    private final Duration timeout;
    private final HttpClient http;
    private final AtomicInteger next = new AtomicInteger();

    HttpTarget(List<Address> gateways, Duration timeout) {
        if (gateways.isEmpty()) {
            throw new IllegalArgumentException("no HTTP gateway given");
        }
        this.gateways = List.copyOf(gateways);
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .build();
    }

    @Override
    public CompletableFuture<GetAnswer> get(Id key, GetMode mode) {
        URI uri = URI.create("http://" + gateway() + "/v1/keys/" + key.toHex() + "?" + mode.httpQuery());
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).handle((r, e) -> {
            if (e != null) {
                throw TargetFailure.of(e);
            }
            if (r.statusCode() != 200) {
                throw problem(r);
            }
            return parseGet(r.body());
        });
    }

    @Override
    public CompletableFuture<Void> put(Id key, byte[] value, Duration ttl) {
        URI uri = URI.create("http://" + gateway() + "/v1/keys/" + key.toHex() + "?ttl=" + ttl.toSeconds());
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout)
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(value)).build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).handle((r, e) -> {
            if (e != null) {
                throw TargetFailure.of(e);
            }
            if (r.statusCode() != 201) {
                throw problem(r);
            }
            return null;
        });
    }

    @Override
    public String refuses(GetMode mode) {
        if (mode.name().equals(GetMode.OPENDHT)) {
            return "the opendht mode is for --target opendht";
        }
        if (mode.options().routing() == RoutingMode.ITERATIVE
                && (mode.options().gateways() > 1 || mode.options().hedge())) {
            return "the HTTP API runs an iterative get at one gateway alone (gateways=1, no hedge)";
        }
        return null;
    }

    @Override
    public void close() {
        // java.net.http.HttpClient has no close() before Java 21; its threads end once it is unreachable.
    }

    private Address gateway() {
        return gateways.get(Math.floorMod(next.getAndIncrement(), gateways.size()));
    }

    /** Parses a 200 answer of {@code GET /v1/keys/{key}}; anything malformed is an error, not a wrong value. */
    static GetAnswer parseGet(byte[] body) {
        try {
            JsonNode root = JSON.readTree(body);
            List<byte[]> values = new ArrayList<>();
            for (JsonNode v : root.path("values")) {
                values.add(Base64.getDecoder().decode(v.path("value").asText()));
            }
            JsonNode cost = root.path("cost");
            return new GetAnswer(values, cost.path("hops").asInt(), cost.path("messages").asLong(),
                    cost.path("bytes").asLong());
        } catch (IOException | IllegalArgumentException e) {
            throw new TargetFailure(false, "malformed get answer: " + e.getMessage());
        }
    }

    /** A non-success answer: a 504 (the gateway's "timeout" problem) is a timeout, anything else an error. */
    private static TargetFailure problem(HttpResponse<byte[]> r) {
        String body = new String(r.body(), StandardCharsets.UTF_8);
        return new TargetFailure(r.statusCode() == 504, "HTTP " + r.statusCode() + " " + body.strip());
    }
}
