package io.rattan.node.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.node.limits.ConnectionLimits;
import io.rattan.node.netty.EnvelopeInitializer;
import io.rattan.node.netty.TransportListener;
import io.rattan.node.tls.PeerTls;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * An inbound peer connection's pipeline: TLS where it is on → framing → codec → rate gate →
 * {@link PeerFrameHandler}.
 * A peer's replies come back on the peer's own outbound connection; only the handshake's {@code Welcome} is written
 * back on this one.
 */
final class PeerInitializer extends EnvelopeInitializer {

    private final Consumer<Envelope> consumer;
    private final String localName;
    private final NettyTransport transport;
    private final RandomGenerator nonces;
    private final TransportListener listener;
    private final ChannelHandler rateGate;

    PeerInitializer(MessageCodec codec, Consumer<Envelope> consumer, String localName, NettyTransport transport,
                    RandomGenerator nonces, TransportListener listener, ConnectionLimits limits,
                    ChannelHandler rateGate) {
        super(codec, listener, "peer connection", limits);
        this.consumer = consumer;
        this.localName = localName;
        this.transport = transport;
        this.nonces = nonces;
        this.listener = listener;
        this.rateGate = rateGate;
    }

    @Override
    protected ChannelHandler tls(Channel ch) {
        PeerTls tls = transport.tls();
        return tls == null ? null : tls.serverHandler(ch);
    }

    @Override
    protected ChannelHandler gate() {
        return rateGate;
    }

    @Override
    protected ChannelHandler newHandler() {
        return new PeerFrameHandler(consumer, localName, transport, nonces, listener);
    }
}
