package io.rattan.bench.harness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.rattan.api.Address;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for a Rattan HTTP gateway that stores puts in memory and answers gets as the real one does, except
 * that it corrupts the first {@code corrupt} answers that carry a value (one byte flipped) and stalls the
 * {@code stallAt}-th get for {@code stallMillis}. One thread serves every request, so a stall holds up everything
 * behind it, as a stalled gateway would. It counts what it did, so tests compare the harness with these counts.
 */
final class StubGateway implements AutoCloseable {

    private final HttpServer server;
    private final Map<String, List<byte[]>> values = new ConcurrentHashMap<>();
    private final int corrupt;
    private final int stallAt;
    private final long stallMillis;
    private final AtomicInteger gets = new AtomicInteger();
    private final AtomicInteger corrupted = new AtomicInteger();

    StubGateway(int corrupt, int stallAt, long stallMillis) throws IOException {
        this.corrupt = corrupt;
        this.stallAt = stallAt;
        this.stallMillis = stallMillis;
        server = StubServers.start("/v1/keys/", this::handle, Executors.newSingleThreadExecutor());
    }

    Address address() {
        return new Address("127.0.0.1", server.getAddress().getPort());
    }

    int gets() {
        return gets.get();
    }

    int corrupted() {
        return corrupted.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        String key = path.substring("/v1/keys/".length());
        if (ex.getRequestMethod().equals("POST")) {
            byte[] body = ex.getRequestBody().readAllBytes();
            values.compute(key, (k, list) -> {
                List<byte[]> l = list == null ? new ArrayList<>() : new ArrayList<>(list);
                l.removeIf(v -> Arrays.equals(v, body));
                l.add(body);
                return l;
            });
            StubServers.reply(ex, 201, "{\"key\":\"" + key + "\",\"replicas\":2}");
            return;
        }
        int n = gets.incrementAndGet();
        if (n == stallAt) {
            try {
                Thread.sleep(stallMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<byte[]> stored = values.getOrDefault(key, List.of());
        StringBuilder json = new StringBuilder("{\"key\":\"" + key + "\",\"values\":[");
        boolean corruptThis = !stored.isEmpty() && corrupted.get() < corrupt;
        for (int i = 0; i < stored.size(); i++) {
            byte[] v = stored.get(i).clone();
            if (corruptThis && i == 0) {
                v[v.length - 1] ^= 1;
            }
            json.append(i == 0 ? "" : ",").append("{\"value\":\"").append(Base64.getEncoder().encodeToString(v))
                    .append("\"}");
        }
        if (corruptThis) {
            corrupted.incrementAndGet();
        }
        json.append("],\"placemark\":null,\"cost\":{\"hops\":1,\"messages\":2,\"bytes\":300}}");
        StubServers.reply(ex, 200, json.toString());
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
