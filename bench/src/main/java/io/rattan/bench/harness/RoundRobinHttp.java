package io.rattan.bench.harness;

import io.netty.handler.codec.http.HttpMethod;
import io.rattan.api.Address;
import io.rattan.bench.harness.Target.TargetFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * HTTP/1.1 requests sent to a list of endpoints in turn, each with one timeout, for the HTTP targets, over
 * {@link KeepAliveHttpClient}'s pooled keep-alive connections. An answer other than the expected status, or a
 * failure to get one, completes the future with a {@link TargetFailure}: a timeout for the client's own timeout or
 * a 504, an error otherwise. The futures complete on the client's I/O threads ({@code onOk} runs there too, so it
 * must not block). Thread-safe; {@link #close()} closes the connections.
 */
final class RoundRobinHttp implements AutoCloseable {

    private final List<Address> endpoints;
    private final KeepAliveHttpClient http;
    private final AtomicInteger next = new AtomicInteger();

    RoundRobinHttp(List<Address> endpoints, Duration timeout) {
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("no HTTP endpoint given");
        }
        this.endpoints = List.copyOf(endpoints);
        this.http = new KeepAliveHttpClient(timeout, ioThreads());
    }

    /**
     * I/O threads: half the cores, at most 4. The harness usually shares its machine with what it measures, and one
     * thread handles thousands of requests a second; a second one helps only when answers are big to parse.
     */
    private static int ioThreads() {
        return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
    }

    /** GETs {@code pathAndQuery} at the next endpoint; an answer with {@code okStatus} is handed to {@code onOk}. */
    <T> CompletableFuture<T> get(String pathAndQuery, int okStatus, Function<byte[], T> onOk) {
        return send(HttpMethod.GET, pathAndQuery, null, null, okStatus, onOk);
    }

    /** POSTs {@code body} of {@code contentType} to {@code pathAndQuery} at the next endpoint. */
    <T> CompletableFuture<T> post(String pathAndQuery, String contentType, byte[] body, int okStatus,
                                  Function<byte[], T> onOk) {
        return send(HttpMethod.POST, pathAndQuery, contentType, body, okStatus, onOk);
    }

    @Override
    public void close() {
        http.close();
    }

    private <T> CompletableFuture<T> send(HttpMethod method, String pathAndQuery, String contentType, byte[] body,
                                          int okStatus, Function<byte[], T> onOk) {
        Address to = endpoints.get(Math.floorMod(next.getAndIncrement(), endpoints.size()));
        return http.send(to, method, pathAndQuery, contentType, body).handle((r, e) -> {
            if (e != null) {
                throw TargetFailure.of(e);
            }
            if (r.status() != okStatus) {
                String text = new String(r.body(), StandardCharsets.UTF_8).strip();
                throw new TargetFailure(r.status() == 504, "HTTP " + r.status() + " " + text);
            }
            return onOk.apply(r.body());
        });
    }
}
