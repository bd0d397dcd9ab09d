package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.client.RattanClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Watches over Rattan's HTTP API as server-sent events ({@code GET /v1/keys/{key}/watch}), one connection each, read
 * on a thread of its own; ready at the stream's {@code ready} event. Puts go through a binary client, as in
 * {@link RattanWatches}, so that only the watches' path differs.
 */
final class SseWatches implements WatchTarget {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<Address> http;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final RattanClient writer;
    private final ExecutorService readers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sse-watch");
        t.setDaemon(true);
        return t;
    });
    private final Queue<Stream<String>> open = new ConcurrentLinkedQueue<>();

    SseWatches(List<Address> httpEndpoints, List<Address> gateways, Duration timeout) {
        this.http = List.copyOf(httpEndpoints);
        this.writer = RattanClient.builder().gateways(gateways).attemptTimeout(timeout).totalTimeout(timeout).build();
    }

    @Override
    public int gateways() {
        return http.size();
    }

    @Override
    public CompletableFuture<Void> watch(int gateway, Id key, Consumer<byte[]> heard) {
        Address a = http.get(gateway);
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://" + a.host() + ":" + a.port() + "/v1/keys/"
                + key.toHex() + "/watch")).GET().build();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        client.sendAsync(get, HttpResponse.BodyHandlers.ofLines()).whenComplete((r, e) -> {
            if (e != null || r.statusCode() != 200) {
                ready.completeExceptionally(e != null ? e : new IllegalStateException("watch at " + a + ": HTTP "
                        + r.statusCode()));
                return;
            }
            open.add(r.body());
            readers.execute(() -> read(r.body(), ready, heard));
        });
        return ready;
    }

    private static void read(Stream<String> lines, CompletableFuture<Void> ready, Consumer<byte[]> heard) {
        String[] event = {""};
        try {
            lines.forEach(line -> {
                if (line.startsWith("event: ")) {
                    event[0] = line.substring(7);
                    if (event[0].equals("ready")) {
                        ready.complete(null);
                    }
                } else if (line.startsWith("data: ") && event[0].equals("value")) {
                    heard.accept(value(line.substring(6)));
                }
            });
        } catch (RuntimeException e) {
            ready.completeExceptionally(e);
        }
    }

    private static byte[] value(String json) {
        try {
            JsonNode v = JSON.readTree(json);
            return Base64.getDecoder().decode(v.get("value").asText());
        } catch (IOException | RuntimeException e) {
            return new byte[0];
        }
    }

    @Override
    public CompletableFuture<Void> put(Id key, byte[] value, int ttlSeconds) {
        return writer.put(key, value, Duration.ofSeconds(ttlSeconds)).thenApply(r -> null);
    }

    @Override
    public void close() {
        open.forEach(Stream::close);
        readers.shutdownNow();
        writer.close();
    }
}
