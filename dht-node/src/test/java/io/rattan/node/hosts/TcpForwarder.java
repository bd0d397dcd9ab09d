package io.rattan.node.hosts;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A port mapping, as a NAT router or {@code docker run -p} makes one, for the tests of several hosts (run in a
 * namespace of its own by {@code ip netns exec}): connections to LISTEN_HOST:LISTEN_PORT are forwarded to
 * TARGET_HOST:TARGET_PORT, byte for byte both ways. The target sees them come from this host, and its own outbound
 * connections do not pass here: they leave from its own address, not the one it is reached at.
 */
public final class TcpForwarder {

    private TcpForwarder() {
    }

    /** Arguments: LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT; runs until killed. */
    public static void main(String[] args) throws IOException {
        InetSocketAddress target = new InetSocketAddress(args[2], Integer.parseInt(args[3]));
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(args[0], Integer.parseInt(args[1])));
            System.out.println("forwarding " + server.getLocalSocketAddress() + " to " + target);
            System.out.flush();
            while (true) {
                Socket in = server.accept();
                Socket out = new Socket();
                try {
                    out.connect(target, 10_000);
                } catch (IOException e) {
                    in.close();
                    out.close();
                    continue;
                }
                pump(in, out);
                pump(out, in);
            }
        }
    }

    private static void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            try (InputStream is = from.getInputStream(); OutputStream os = to.getOutputStream()) {
                is.transferTo(os);
            } catch (IOException e) {
                // One side closed: close both below.
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException e) {
                    // Already closed.
                }
            }
        });
        t.setDaemon(true);
        t.start();
    }
}
