package io.rattan.node.netty;

import static io.rattan.node.netty.TestMessages.PREVIOUS;
import static io.rattan.node.netty.TestMessages.readFrame;
import static io.rattan.node.netty.TestMessages.writeFrame;

import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Challenge;
import io.rattan.core.msg.MembershipMessages.ChallengeAnswer;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.msg.MembershipMessages.Welcome;
import io.rattan.core.msg.MessageType;
import io.rattan.core.net.Contact;
import io.rattan.node.transport.TestProofs;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Collection;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The peer handshake (docs/protocol.md) spoken from raw blocking sockets, as a test peer or a hostile one would: a
 * {@link RawPeer} listens on 127.0.0.1 (or another loopback address) and proves its claim to a node, or welcomes a
 * node that dialed it.
 */
public final class Handshakes {

    private static final int TIMEOUT_MILLIS = 20_000;

    private Handshakes() {
    }

    /** A peer made of sockets: it listens on a loopback address and claims {@code contact}'s id, with its port. */
    public static final class RawPeer implements AutoCloseable {
        public final ServerSocket listener;
        public final Contact contact;
        /** Our connection to the node, proven once {@link #dialAndProve} returns. */
        public Socket toNode;
        /** The node's connection to us (it dialed us to challenge our claim). */
        public Socket fromNode;
        /** What the node's own hello claimed. */
        public Contact node;
        // What our frames are written in, the handshake's too (the newest unless told otherwise).
        private MessageCodec codec = TestMessages.CODEC;

        // Makes the proof of our claimed id for a nonce and the node's contact; null: we answer in the oldest
        // version without one, which no node of this build takes (every version it speaks proves ids).
        private final BiFunction<Long, Contact, IdProof> prover;

        /** A peer of this version with a key of its own, drawn from {@code name}: it proves its own id. */
        public RawPeer(String name) throws IOException {
            this(name, "127.0.0.1");
        }

        /** As {@link #RawPeer(String)}, listening on {@code host}, an address of this machine's loopback. */
        public RawPeer(String name, String host) throws IOException {
            this(TestMessages.key(name).id(), host, TestProofs.prover(TestMessages.key(name)));
        }

        /** A peer of this version claiming {@code id}, whose answers carry {@code prover}'s proof. */
        public RawPeer(io.rattan.api.Id id, BiFunction<Long, Contact, IdProof> prover) throws IOException {
            this(id, "127.0.0.1", prover);
        }

        /**
         * A peer listening on {@code host}, an address of this machine's loopback (127.0.0.x: another host, as far as
         * a node's per-host bounds can tell), claiming {@code id}; {@code prover} as above.
         */
        public RawPeer(io.rattan.api.Id id, String host, BiFunction<Long, Contact, IdProof> prover)
                throws IOException {
            this.listener = new ServerSocket(0, 50, InetAddress.getByName(host));
            listener.setSoTimeout(TIMEOUT_MILLIS);
            this.contact = new Contact(id, new io.rattan.api.Address(host, listener.getLocalPort()));
            this.prover = prover;
        }

        /** This peer speaks {@code version} from its hello on: a peer of an older release. Before dialing. */
        public RawPeer speaking(int version) {
            codec = MessageCodec.speaking(version);
            return this;
        }

        /**
         * Dials the node at {@code nodePeerPort} and proves our claim: hello, the node's challenge arrives on the
         * connection it dials back, the answer goes on ours, and the node's welcome comes back on ours. With
         * {@code welcomeBack}, also proves the node to us (so that it may send us envelopes on {@link #fromNode}).
         */
        public RawPeer dialAndProve(int nodePeerPort, boolean welcomeBack) throws IOException {
            toNode = new Socket();
            // From the host we claim: a node takes a claim only for the address a connection comes from.
            toNode.bind(new InetSocketAddress(contact.address().host(), 0));
            toNode.connect(new InetSocketAddress("127.0.0.1", nodePeerPort), TIMEOUT_MILLIS);
            toNode.setSoTimeout(TIMEOUT_MILLIS);
            if (prover == null) {
                writeFrame(toNode, new Envelope(contact, 0, new Hello(MessageCodec.VERSION_OLDEST)), PREVIOUS);
            } else {
                writeFrame(toNode, new Envelope(contact, 0, new Hello(codec.version())), codec);
            }
            fromNode = listener.accept();
            fromNode.setSoTimeout(TIMEOUT_MILLIS);
            Envelope hello = expect(fromNode, MessageType.HELLO);
            node = hello.sender();
            long ourNonce = 0x5eed_0000_1234L;
            if (welcomeBack) {
                writeFrame(toNode, new Envelope(contact, ourNonce, new Challenge()), codec);
            }
            Envelope challenge = expect(fromNode, MessageType.CHALLENGE);
            Envelope ours = new Envelope(contact, challenge.requestId(),
                    new ChallengeAnswer(prover == null ? null : prover.apply(challenge.requestId(), node)));
            writeFrame(toNode, ours, prover == null ? PREVIOUS : codec);
            if (welcomeBack) {
                Envelope answer = expect(fromNode, MessageType.CHALLENGE_ANSWER);
                if (answer.requestId() != ourNonce) {
                    throw new IOException("the node answered our challenge with another nonce");
                }
                writeFrame(fromNode, new Envelope(null, codec.version(), new Welcome()), codec);
            }
            expect(toNode, MessageType.WELCOME);
            return this;
        }

        /** Sends {@code envelope} on our proven connection. */
        public void send(Envelope envelope) throws IOException {
            writeFrame(toNode, envelope, codec);
        }

        @Override
        public void close() throws IOException {
            for (AutoCloseable c : new AutoCloseable[] {toNode, fromNode, listener}) {
                try {
                    if (c != null) {
                        c.close();
                    }
                } catch (Exception e) {
                    // closing a test socket: nothing to do
                }
            }
        }
    }

    /**
     * The listener's side, on a socket a node dialed to {@code us}: reads its hello, challenges its claim over a new
     * connection to the address it claimed (from which we say hello as {@code us}), and welcomes it once the answer
     * comes back on {@code accepted}. Returns the connection we dialed (the caller closes it).
     */
    public static Socket welcome(Socket accepted, Contact us) throws IOException {
        accepted.setSoTimeout(TIMEOUT_MILLIS);
        Envelope hello = expect(accepted, MessageType.HELLO);
        Contact claimed = hello.sender();
        Socket back = new Socket();
        back.connect(new InetSocketAddress(claimed.address().host(), claimed.address().port()), TIMEOUT_MILLIS);
        long nonce = 0x0dd_ba11L;
        writeFrame(back, new Envelope(us, 0, new Hello(MessageCodec.VERSION)));
        writeFrame(back, new Envelope(us, nonce, new Challenge()));
        while (true) {
            Envelope e = readFrame(accepted);
            if (e.body().type() == MessageType.CHALLENGE_ANSWER && e.requestId() == nonce) {
                break;
            }
        }
        writeFrame(accepted, new Envelope(null, 0, new Welcome()));
        return back;
    }

    /**
     * The listening side of a test peer: accepts connections on {@code listener} on a daemon thread named
     * {@code name} until the listener is closed, adds each to {@code opened} (which the caller closes) and serves it
     * with {@code serve} on a daemon thread of its own, so that one slow connection does not hold up the next.
     */
    public static void acceptEach(ServerSocket listener, String name, Collection<? super Socket> opened,
                                  Consumer<Socket> serve) {
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    Socket s = listener.accept();
                    opened.add(s);
                    Thread reader = new Thread(() -> serve.accept(s), name + "-reader");
                    reader.setDaemon(true);
                    reader.start();
                }
            } catch (IOException closed) {
                // the listener is closed
            }
        }, name);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Reads the node's frames to {@code peer} until the answer of {@code type} to request {@code id}. */
    public static Envelope awaitReply(RawPeer peer, MessageType type, long id) throws IOException {
        while (true) {
            Envelope e = expect(peer.fromNode, type);
            if (e.requestId() == id) {
                return e;
            }
        }
    }

    /** Reads frames until one of {@code type}; fails on end of stream or the read timeout. */
    public static Envelope expect(Socket socket, MessageType type) throws IOException {
        while (true) {
            Envelope e = readFrame(socket);
            if (e.body().type() == type) {
                return e;
            }
        }
    }
}
