package io.rattan.bench.harness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;

/** The JDK's HTTP server as the stubs of these tests use it: on 127.0.0.1, any free port. */
final class StubServers {

    private StubServers() {
    }

    /** Starts a server on 127.0.0.1 and a free port whose {@code path} requests go to {@code handler}. */
    static HttpServer start(String path, HttpHandler handler, Executor executor) throws IOException {
        // Without it the server writes headers and body in two segments, and Nagle's algorithm with the client's
        // delayed ACK adds ~40 ms to every answer. Read when the first server is made, so set before.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(executor);
        server.createContext(path, handler);
        server.start();
        return server;
    }

    /** Answers with {@code status} and a JSON body; an empty body is sent as none, as OpenDHT's proxy does. */
    static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }
}
