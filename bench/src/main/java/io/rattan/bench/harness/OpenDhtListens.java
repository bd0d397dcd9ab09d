package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.api.Id;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * Listens through OpenDHT's REST proxies ({@code dhtnode --proxyserver PORT}): {@code GET /key/{hex}/listen} streams
 * each value as a line of JSON ({@code {"data": base64, "id": …}}) as it arrives, one HTTP connection per listen, each
 * read on a thread of its own; puts are {@code POST /key/{hex}} through the proxies in turn. The proxy marks no
 * "ready": a listen counts as ready once its answer's head arrived and one more second passed.
 */
final class OpenDhtListens implements WatchTarget {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SETTLE = Duration.ofSeconds(1);

    private final List<Address> proxies;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final OpenDhtTarget puts;
    private final ExecutorService readers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "opendht-listen");
        t.setDaemon(true);
        return t;
    });
    private final Queue<Stream<String>> open = new ConcurrentLinkedQueue<>();

    OpenDhtListens(List<Address> proxies, Duration timeout) {
        this.proxies = List.copyOf(proxies);
        this.puts = new OpenDhtTarget(proxies, timeout);
    }

    @Override
    public int gateways() {
        return proxies.size();
    }

    @Override
    public CompletableFuture<Void> watch(int gateway, Id key, Consumer<byte[]> heard) {
        Address p = proxies.get(gateway);
        HttpRequest listen = HttpRequest.newBuilder(URI.create("http://" + p.host() + ":" + p.port() + "/key/"
                + key.toHex() + "/listen")).GET().build();
        return http.sendAsync(listen, HttpResponse.BodyHandlers.ofLines()).thenCompose(r -> {
            if (r.statusCode() != 200) {
                throw new IllegalStateException("listen at " + p + ": HTTP " + r.statusCode());
            }
            open.add(r.body());
            readers.execute(() -> {
                try {
                    r.body().forEach(line -> heard.accept(data(line)));
                } catch (UncheckedIOException e) {
                    // The listen was closed (the run ended) or the proxy went away: its events end here.
                }
            });
            return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(SETTLE.toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS));
        });
    }

    private static byte[] data(String line) {
        try {
            JsonNode v = JSON.readTree(line);
            return v.has("data") ? Base64.getDecoder().decode(v.get("data").asText()) : new byte[0];
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public CompletableFuture<Void> put(Id key, byte[] value, int ttlSeconds) {
        return puts.put(key, value, Duration.ofSeconds(ttlSeconds));
    }

    @Override
    public void close() {
        open.forEach(Stream::close);
        readers.shutdownNow();
        puts.close();
    }
}
