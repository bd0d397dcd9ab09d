package io.rattan.node.limits;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A keep-alive HTTP/1.1 connection from a chosen local address (127.0.0.x), for tests that need clients with
 * distinct source IPs; the JDK's HttpClient cannot bind one. Not thread-safe: one per client thread.
 */
final class RawHttp implements AutoCloseable {

    /** One answer: status, headers (lower-case names) and body. */
    record Response(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawHttp(String localIp, InetSocketAddress server) throws IOException {
        socket = new Socket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getByName(localIp), 0));
        socket.connect(server, 5_000);
        socket.setSoTimeout(20_000);
        socket.setTcpNoDelay(true);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    Response get(String path) throws IOException {
        return send("GET", path, new byte[0], Map.of());
    }

    Response post(String path, byte[] body) throws IOException {
        return send("POST", path, body, Map.of());
    }

    Response send(String method, String path, byte[] body, Map<String, String> headers) throws IOException {
        write(method, path, body, headers);
        return read();
    }

    /** Writes one request without reading its answer (a pipeliner). */
    void write(String method, String path, byte[] body, Map<String, String> headers) throws IOException {
        StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: test\r\nContent-Length: ").append(body.length).append("\r\n");
        headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        head.append("\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    /** Reads one answer (Content-Length bodies only, as the gateway sends). */
    Response read() throws IOException {
        String status = line();
        if (status == null) {
            throw new IOException("connection closed");
        }
        int code = Integer.parseInt(status.split(" ")[1]);
        Map<String, String> headers = new TreeMap<>();
        for (String h = line(); h != null && !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new IOException("truncated body");
        }
        return new Response(code, headers, body);
    }

    /** Sends raw bytes, for slow or malformed clients. */
    void raw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** True once the server has closed the connection (a read sees the end of the stream or a reset). */
    boolean closedByServer() {
        return closedByServer(socket, in);
    }

    /** True once the peer of {@code socket} has closed it: a short read sees the end of the stream or a reset. */
    static boolean closedByServer(Socket socket, InputStream in) {
        try {
            socket.setSoTimeout(50);
            return in.read() < 0;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    Socket socket() {
        return socket;
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
