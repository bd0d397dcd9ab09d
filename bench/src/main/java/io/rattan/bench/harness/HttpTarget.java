package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Rattan through its HTTP API ({@code docs}: DESIGN.md's table): each request goes to the next gateway in turn,
 * and the gateway node performs the mode (its own racing of gateways, hedging, one-hop).
 */
final class HttpTarget implements Target {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RoundRobinHttp http;

    HttpTarget(List<Address> gateways, Duration timeout) {
        this.http = new RoundRobinHttp(gateways, timeout);
    }

    @Override
    public CompletableFuture<GetAnswer> get(Id key, GetMode mode) {
        return http.get("/v1/keys/" + key.toHex() + "?" + mode.httpQuery(), 200, HttpTarget::parseGet);
    }

    @Override
    public CompletableFuture<Void> put(Id key, byte[] value, Duration ttl) {
        return http.post("/v1/keys/" + key.toHex() + "?ttl=" + ttl.toSeconds(), "application/octet-stream", value,
                201, body -> null);
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
        http.close();
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

}
