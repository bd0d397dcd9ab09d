package io.rattan.bench.harness;

import io.rattan.bench.harness.Target.TargetFailure;
import io.rattan.core.net.Address;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * HTTP/1.1 requests sent to a list of endpoints in turn, each with one timeout, for the HTTP targets. An answer
 * other than the expected status, or a failure to get one, completes the future with a {@link TargetFailure}: a
 * timeout for the client's own timeout or a 504, an error otherwise. Thread-safe.
 */
final class RoundRobinHttp {

    private final List<Address> endpoints;
    private final Duration timeout;
    private final HttpClient http;
    private final AtomicInteger next = new AtomicInteger();

    RoundRobinHttp(List<Address> endpoints, Duration timeout) {
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("no HTTP endpoint given");
        }
        this.endpoints = List.copyOf(endpoints);
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .build();
    }

    /** A request for {@code pathAndQuery} at the next endpoint, with the timeout set. */
    HttpRequest.Builder request(String pathAndQuery) {
        Address to = endpoints.get(Math.floorMod(next.getAndIncrement(), endpoints.size()));
        return HttpRequest.newBuilder(URI.create("http://" + to + pathAndQuery)).timeout(timeout);
    }

    /** Sends {@code request}; an answer with {@code okStatus} is handed to {@code onOk}. */
    <T> CompletableFuture<T> send(HttpRequest request, int okStatus, Function<byte[], T> onOk) {
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).handle((r, e) -> {
            if (e != null) {
                throw TargetFailure.of(e);
            }
            if (r.statusCode() != okStatus) {
                String body = new String(r.body(), StandardCharsets.UTF_8).strip();
                throw new TargetFailure(r.statusCode() == 504, "HTTP " + r.statusCode() + " " + body);
            }
            return onOk.apply(r.body());
        });
    }
}
