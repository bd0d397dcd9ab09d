package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.api.Id;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * OpenDHT through its REST proxy ({@code dhtnode --proxyserver PORT}; see {@code /work/shared/PEERS.md}):
 * {@code POST /key/{hex}} with {@code {"data": base64, "id": n}} stores a value, {@code GET /key/{hex}} streams the
 * values as newline-delimited JSON and ends when the get is done. The latency measured is the complete get (the
 * end of the stream), not the first value. OpenDHT has one way of getting, so the only mode is {@code opendht};
 * its REST API takes no TTL (values live for their type's lifetime, 10 minutes by default), so --ttl must not
 * exceed that. Each request goes to the next proxy in turn.
 */
final class OpenDhtTarget implements Target {

    /** The only mode this target performs. */
    static final String MODE = "opendht";
    /** How long OpenDHT keeps a value of the default type; re-puts must come sooner. */
    static final Duration VALUE_LIFETIME = Duration.ofMinutes(10);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RoundRobinHttp http;

    OpenDhtTarget(List<Address> proxies, Duration timeout) {
        this.http = new RoundRobinHttp(proxies, timeout);
    }

    @Override
    public CompletableFuture<GetAnswer> get(Id key, GetMode mode) {
        // The proxy streams the values and ends the answer when the get is done; the client reads it to its end.
        return http.get(path(key), 200, body -> new GetAnswer(parseGet(body), 0, 0, 0));
    }

    @Override
    public CompletableFuture<Void> put(Id key, byte[] value, Duration ttl) {
        String body = "{\"data\":\"" + Base64.getEncoder().encodeToString(value) + "\",\"id\":" + valueId(value)
                + "}";
        return http.post(path(key), "application/json", body.getBytes(StandardCharsets.UTF_8), 200,
                answer -> null);
    }

    @Override
    public String refuses(GetMode mode) {
        return mode.name().equals(MODE) ? null : "OpenDHT gets one way only: use --modes " + MODE;
    }

    @Override
    public List<GetMode> modes() {
        return List.of(GetMode.parse(MODE));
    }

    @Override
    public void close() {
        http.close();
    }

    private static String path(Id key) {
        return "/key/" + key.toHex();
    }

    /**
     * The values of a finished get stream: one JSON object per line, {@code data} in base64. A value delivered
     * twice (OpenDHT may hear it from several nodes) counts once, as Rattan's value sets do.
     */
    static List<byte[]> parseGet(byte[] body) {
        List<byte[]> values = new ArrayList<>();
        for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonNode v = JSON.readTree(line);
                byte[] data = Base64.getDecoder().decode(v.path("data").asText());
                if (values.stream().noneMatch(x -> Arrays.equals(x, data))) {
                    values.add(data);
                }
            } catch (IOException | IllegalArgumentException e) {
                throw new TargetFailure(false, "malformed OpenDHT value line: " + e.getMessage());
            }
        }
        return values;
    }

    /**
     * A value's id: the first 6 bytes of its SHA-256 as a number (below 2^53, so JSON numbers carry it exactly).
     * The same bytes get the same id, so a re-put refreshes the value instead of adding a copy.
     */
    static long valueId(byte[] value) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(value);
            return ByteBuffer.wrap(Arrays.copyOf(h, 8)).getLong() >>> 16;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
    }
}
