package io.rattan.node.transport;

import com.google.common.net.InetAddresses;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.ScheduledFuture;
import io.rattan.client.netty.EnvelopeCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.ChallengeAnswer;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.msg.MembershipMessages.Welcome;
import io.rattan.core.net.Contact;
import io.rattan.node.netty.RateGate;
import io.rattan.node.netty.TransportListener.RefusalReason;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.tls.PeerTls;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thin end of an inbound peer connection's pipeline: runs the listener's side of the peer handshake, then hands
 * each decoded envelope whose sender is the proven contact to the node. Malformed input never gets here; the codec
 * before it closes the connection. One instance per connection, confined to the node's loop.
 *
 * <p>The handshake (docs/protocol.md): the dialer's first frame is a {@code Hello} claiming a contact. The claim holds
 * only if its host is an IP literal equal to the connection's source IP (under TLS instead: its id is the one the
 * peer's certificate carries, {@link PeerTls}) and it shares a protocol version with this
 * node (the newest it speaks is its request id; {@link PeerVersions}); then a
 * {@code Challenge} with an unpredictable nonce goes to the claimed address over a connection this node dials
 * ({@link NettyTransport#challenge}), and the claim is proven when the nonce comes back as a {@code ChallengeAnswer}
 * on this connection: whoever holds this connection also listens at the claimed address; from a peer that shares
 * protocol 13 with this node, the answer must also prove the claimed id ({@link IdProofs}). Only then is a
 * {@code Welcome} written back, and envelopes taken, each only when its sender equals the proven contact. Envelopes
 * before that, or naming another sender, are dropped and counted; a bad hello or answer, or no answer within
 * {@link NettyTransport#HANDSHAKE_TIMEOUT_MILLIS}, closes the connection.
 *
 * <p>A {@code Challenge} that arrives here was sent by a node this node dialed (it proves its own claim the same
 * way): it is answered on this node's own connection to the address that node's {@code Hello} claimed, never on a
 * new one.
 */
final class PeerFrameHandler extends SimpleChannelInboundHandler<Envelope> {

    private static final Logger log = LoggerFactory.getLogger(PeerFrameHandler.class);

    private final Consumer<Envelope> consumer;
    private final String localName;
    private final NettyTransport transport;
    private final RandomGenerator nonces;
    private final TransportListener listener;

    // The contact the Hello claimed; proven once verified is true.
    private Contact claimed;
    private long nonce;
    private boolean verified;
    // The version to speak to the dialer, from its Hello; taken by the transport once the claim is proven.
    private int version;
    private PeerVersions.Taught taught;
    private ScheduledFuture<?> timeout;

    PeerFrameHandler(Consumer<Envelope> consumer, String localName, NettyTransport transport, RandomGenerator nonces,
                     TransportListener listener) {
        this.consumer = consumer;
        this.localName = localName;
        this.transport = transport;
        this.nonces = nonces;
        this.listener = listener;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        timeout = ctx.executor().schedule(() -> {
            if (!verified) {
                log.debug("{}: peer connection from {} did not complete its handshake", localName,
                        ctx.channel().remoteAddress());
                ctx.close();
            }
        }, NettyTransport.HANDSHAKE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timeout != null) {
            timeout.cancel(false);
        }
        if (taught != null) {
            transport.versions().forget(claimed.address(), taught);
        }
        ctx.fireChannelInactive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Envelope envelope) {
        switch (envelope.body().type()) {
            case HELLO -> onHello(ctx, envelope);
            case CHALLENGE -> {
                if (claimed != null) {
                    transport.answerChallenge(claimed, envelope.requestId(), version);
                } else {
                    refuse(ctx, RefusalReason.BAD_ANSWER, "a challenge before its hello");
                }
            }
            case CHALLENGE_ANSWER -> onAnswer(ctx, envelope);
            case WELCOME -> refuse(ctx, RefusalReason.BAD_ANSWER, "a welcome on an inbound connection");
            default -> deliver(envelope);
        }
    }

    private void onHello(ChannelHandlerContext ctx, Envelope hello) {
        Contact sender = hello.sender();
        int frameVersion = frameVersion(ctx);
        // Until this node knows its own contact it cannot sign a challenge: the dialer retries after closing.
        PeerTls tls = transport.tls();
        if (transport.identity() == null || claimed != null || sender == null
                || ((Hello) hello.body()).version() != frameVersion
                || (tls == null ? !isSourceIp(ctx, sender.address().host())
                        : !InetAddresses.isInetAddress(sender.address().host()))) {
            refuse(ctx, RefusalReason.BAD_HELLO, "a hello that cannot hold: " + sender);
            return;
        }
        // Under TLS the certificate proves the id, wherever the connection comes from (NAT); the dial-back stays.
        if (tls != null && !tls.certifies(ctx.channel(), sender.id())) {
            refuse(ctx, RefusalReason.UNPROVEN_ID, "a hello claiming " + sender.id() + " over another's certificate");
            return;
        }
        version = transport.versions().shared(PeerVersions.newestOf(hello.requestId(), frameVersion));
        if (version < 0) {
            refuse(ctx, RefusalReason.BAD_HELLO, "a hello of versions this node does not speak: " + sender);
            return;
        }
        if (transport.versions().unprovable(version)) {
            refuse(ctx, RefusalReason.UNPROVEN_ID, "a hello of protocol " + version + ", which cannot prove the id "
                    + sender.id() + " (--require-id-proof)");
            return;
        }
        claimed = sender;
        nonce = nonces.nextLong();
        transport.challenge(sender.address(), nonce);
    }

    private void onAnswer(ChannelHandlerContext ctx, Envelope answer) {
        if (verified) {
            // Another's challenge answered on a proven connection (under TLS a member may claim a peer's address to
            // draw it): dropped, not a reason to cut the proven peer off.
            listener.peerFrameRefused(RefusalReason.BAD_ANSWER);
            return;
        }
        if (claimed == null || answer.requestId() != nonce) {
            refuse(ctx, RefusalReason.BAD_ANSWER, "a wrong challenge answer");
            return;
        }
        // Every version from 13 on proves the id (a peer of 12, which cannot, no longer gets this far: see onHello).
        if (version >= IdProofs.SINCE && !IdProofs.holds(((ChallengeAnswer) answer.body()).proof(), claimed.id(),
                nonce, transport.identity())) {
            refuse(ctx, RefusalReason.UNPROVEN_ID, "an answer that does not prove the id " + claimed.id());
            return;
        }
        verified = true;
        timeout.cancel(false);
        // Only a proven claim sets what this node writes to that address: a stranger on the peer's IP cannot.
        taught = transport.versions().learn(claimed.address(), version);
        // From here on this connection's frames count against the proven node id's rate, not its IP's.
        RateGate.verified(ctx.channel(), claimed.id());
        log.debug("{}: peer {} proved its address", localName, claimed);
        // Its request id names the newest version this node speaks, as a Hello's does: the dialer learns it here.
        ctx.writeAndFlush(new Envelope(null, transport.versions().own().version(), new Welcome()));
    }

    private void deliver(Envelope envelope) {
        if (!verified) {
            listener.peerFrameRefused(RefusalReason.UNVERIFIED);
            return;
        }
        if (!claimed.equals(envelope.sender())) {
            listener.peerFrameRefused(RefusalReason.FORGED_SENDER);
            log.debug("{}: dropped a {} naming {} on the connection of {}", localName, envelope.body().type(),
                    envelope.sender(), claimed);
            return;
        }
        try {
            consumer.accept(envelope);
        } catch (RuntimeException e) {
            // A failure of the node on one message is a bug to fix, not a reason to drop the peer's connection.
            log.warn("{}: node failed on {} from {}", localName, envelope.body().type(), envelope.sender(), e);
        }
    }

    private void refuse(ChannelHandlerContext ctx, RefusalReason reason, String what) {
        listener.peerFrameRefused(reason);
        log.debug("{}: closing peer connection from {}: {}", localName, ctx.channel().remoteAddress(), what);
        ctx.close();
    }

    /** The protocol version of the frame just decoded on this connection. */
    private static int frameVersion(ChannelHandlerContext ctx) {
        return ctx.pipeline().get(EnvelopeCodec.class).peerVersion();
    }

    /** Whether {@code host} is an IP literal naming the address this connection comes from. */
    private static boolean isSourceIp(ChannelHandlerContext ctx, String host) {
        if (!(ctx.channel().remoteAddress() instanceof InetSocketAddress remote) || remote.getAddress() == null
                || !InetAddresses.isInetAddress(host)) {
            return false;
        }
        InetAddress claimedIp = InetAddresses.forString(host);
        return claimedIp.equals(remote.getAddress());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("peer connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
