package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.rattan.api.Address;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OpenDHT REST proxy in memory, answering in the shapes recorded from a real one (test resources
 * {@code opendht/}): a put echoes {@code {"data":…,"id":"…","type":0}}; a get streams one such line per value, in id
 * order, and nothing for a key without values. A value's id names it: a put with a known id replaces it.
 */
final class OpenDhtStub implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final Map<String, Map<Long, String>> keys = new ConcurrentHashMap<>();
    private final AtomicInteger gets = new AtomicInteger();

    OpenDhtStub() throws IOException {
        server = StubServers.start("/key/", this::handle, executor);
    }

    Address address() {
        return new Address("127.0.0.1", server.getAddress().getPort());
    }

    int gets() {
        return gets.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        String key = ex.getRequestURI().getPath().substring("/key/".length());
        if (ex.getRequestMethod().equals("POST")) {
            JsonNode v = JSON.readTree(ex.getRequestBody().readAllBytes());
            long id = v.path("id").asLong();
            String line = "{\"data\":\"" + v.path("data").asText() + "\",\"id\":\"" + id + "\",\"type\":0}";
            keys.computeIfAbsent(key, k -> new ConcurrentSkipListMap<>()).put(id, line);
            StubServers.reply(ex, 200, line + "\n");
            return;
        }
        gets.incrementAndGet();
        StringBuilder body = new StringBuilder();
        for (String line : keys.getOrDefault(key, Map.of()).values()) {
            body.append(line).append('\n');
        }
        StubServers.reply(ex, 200, body.toString());
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
