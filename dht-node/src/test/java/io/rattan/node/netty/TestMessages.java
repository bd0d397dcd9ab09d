package io.rattan.node.netty;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.net.Contact;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

/** Envelopes and raw-socket framing for transport tests. */
public final class TestMessages {

    public static final Contact SENDER = new Contact(Id.ofName("sender"), new Address("127.0.0.1", 4000));
    public static final MessageCodec CODEC = new MessageCodec();
    /** The version before: what a peer of the previous release speaks, whose id is taken without a proof. */
    public static final MessageCodec PREVIOUS = CODEC.at(MessageCodec.VERSION_OLDEST);
    // One expiry for every put of a run, an hour ahead, so that two puts built alike are equal.
    private static final long PUT_EXPIRES_AT = System.currentTimeMillis() + 3_600_000;

    private TestMessages() {
    }

    /** A node key named after {@code name}: the same in every run. */
    public static NodeKey key(String name) {
        return NodeKey.ofSeed(Bytes.utf8(name).sha256());
    }

    public static Envelope ping(long requestId) {
        return new Envelope(SENDER, requestId, new Ping());
    }

    /** A put carrying {@code valueBytes} bytes, so that frames have some weight. */
    public static Envelope put(long requestId, int valueBytes) {
        byte[] value = new byte[valueBytes];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (requestId + i);
        }
        return new Envelope(SENDER, requestId, new PutRequest(Id.ofName("key-" + requestId), Bytes.wrap(value), 3600,
                PUT_EXPIRES_AT, Bytes.EMPTY, SENDER, requestId, 0));
    }

    /** Writes one length-prefixed frame of {@code envelope} on a blocking socket. */
    public static void writeFrame(Socket socket, Envelope envelope) throws IOException {
        writeRaw(socket, CODEC.encode(envelope));
    }

    /** Writes {@code envelope} in {@code codec}'s version. */
    public static void writeFrame(Socket socket, Envelope envelope, MessageCodec codec) throws IOException {
        writeRaw(socket, codec.encode(envelope));
    }

    /**
     * Writes {@code envelope} as a frame of {@code version}, one before {@link #PREVIOUS}'s, as a node of the previous
     * release writes its handshake: those frames' layout is {@code PREVIOUS}'s, which no codec of this build writes.
     */
    public static void writeFrameOf(Socket socket, Envelope envelope, int version) throws IOException {
        byte[] body = PREVIOUS.encode(envelope);
        body[0] = (byte) version;
        writeRaw(socket, body);
    }

    /** Writes {@code body} behind its 4-byte length. */
    public static void writeRaw(Socket socket, byte[] body) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    /** Reads one length-prefixed frame from a blocking socket and decodes it. */
    public static Envelope readFrame(Socket socket) throws IOException {
        return CODEC.decode(readRaw(socket));
    }

    /** Reads one length-prefixed frame's body from a blocking socket. */
    public static byte[] readRaw(Socket socket) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        return body;
    }

    /**
     * True when the peer has closed the connection: a read sees end of stream or a reset. Blocks until then, or
     * until the socket's read timeout, which then fails the test.
     */
    public static boolean closedByPeer(Socket socket) throws IOException {
        try {
            while (true) {
                int b = socket.getInputStream().read();
                if (b < 0) {
                    return true;
                }
            }
        } catch (java.net.SocketException e) {
            return true;
        }
    }
}
