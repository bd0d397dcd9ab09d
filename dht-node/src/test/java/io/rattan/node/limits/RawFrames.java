package io.rattan.node.limits;

import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/** A length-prefixed binary connection (peer or client protocol) from a chosen local address. Not thread-safe. */
final class RawFrames implements AutoCloseable {

    private static final MessageCodec CODEC = new MessageCodec();

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    RawFrames(String localIp, InetSocketAddress server) throws IOException {
        socket = new Socket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getByName(localIp), 0));
        socket.connect(server, 5_000);
        socket.setSoTimeout(20_000);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    void send(Envelope envelope) throws IOException {
        byte[] body = CODEC.encode(envelope);
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    Envelope receive() throws IOException {
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        return CODEC.decode(body);
    }

    Envelope call(Envelope request) throws IOException {
        send(request);
        return receive();
    }

    void raw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** True once the server has closed the connection. */
    boolean closedByServer() {
        return RawHttp.closedByServer(socket, in);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
