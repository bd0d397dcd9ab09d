package io.rattan.node.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import io.rattan.client.netty.EnvelopeCodec;
import io.rattan.core.codec.MessageCodec;
import io.rattan.node.limits.ConnectionLimits;
import java.util.concurrent.TimeUnit;

/**
 * The pipeline of a binary protocol's connection, peer or client: TLS where it is on → idle reaping → byte counting → framing with a
 * per-frame deadline ({@link Frames#newFrameDecoder}) → {@link EnvelopeCodec} (without a scratch array: thousands of
 * connections keep none) → {@link MalformedFrameCloser} → an optional gate (the peer port's rate limit) → the
 * protocol's thin handler, which sees only decoded envelopes. A protocol names its handler; everything below it is
 * the same for both. Sharable: each connection gets its own framing, codec and handler.
 */
@ChannelHandler.Sharable
public abstract class EnvelopeInitializer extends ChannelInitializer<Channel> {

    /**
     * Set true on a connection that must not be closed for being idle: one that holds a client's watches, whose key
     * may stay quiet for longer than the idle timeout.
     */
    public static final AttributeKey<Boolean> KEEP_WHILE_IDLE = AttributeKey.valueOf("rattan.keepWhileIdle");

    private final MessageCodec codec;
    private final TransportListener listener;
    private final String connectionKind;
    private final ByteCountingHandler byteCounter;
    private final ConnectionLimits limits;
    private final IdleCloser idleCloser;

    /**
     * @param codec          decodes and encodes frame bodies; its {@code frameBytesMax} bounds the frame length
     * @param listener       receives byte counts, rejected frames and refusals
     * @param connectionKind how logs name a connection, e.g. "peer connection"
     * @param limits         the idle timeout and the frame deadline
     */
    protected EnvelopeInitializer(MessageCodec codec, TransportListener listener, String connectionKind,
                                  ConnectionLimits limits) {
        this.codec = codec;
        this.listener = listener;
        this.connectionKind = connectionKind;
        this.byteCounter = new ByteCountingHandler(listener);
        this.limits = limits;
        this.idleCloser = new IdleCloser(listener);
    }

    /** The thin handler of one new connection; called on the connection's loop. */
    protected abstract ChannelHandler newHandler();

    /** The TLS handler of the new connection {@code ch}, first in its pipeline, or null (the default) for none. */
    protected ChannelHandler tls(Channel ch) {
        return null;
    }

    /** A sharable handler between the codec and the thin handler, or null (the default) for none. */
    protected ChannelHandler gate() {
        return null;
    }

    @Override
    protected final void initChannel(Channel ch) {
        ChannelHandler tls = tls(ch);
        if (tls != null) {
            ch.pipeline().addLast("tls", tls);
        }
        ch.pipeline()
                .addLast("idle", new IdleStateHandler(0, 0, limits.idleMillis(), TimeUnit.MILLISECONDS))
                .addLast("idle-closer", idleCloser)
                .addLast("bytes", byteCounter)
                .addLast("framing", Frames.newFrameDecoder(codec.frameBytesMax(), limits.frameDeadlineMillis(),
                        listener))
                .addLast("codec", EnvelopeCodec.withoutScratch(codec))
                .addLast("malformed", new MalformedFrameCloser(listener, connectionKind));
        ChannelHandler gate = gate();
        if (gate != null) {
            ch.pipeline().addLast("gate", gate);
        }
        ch.pipeline().addLast("handler", newHandler());
    }
}
