package io.rattan.node.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Condemns a connection on malformed input. Sits right after the envelope codec: a frame body that does not decode,
 * or a framing error from below (a length above the limit, or negative), is counted once
 * ({@link TransportListener#frameRejected}), logged at debug, and the channel is closed; envelopes decoded from the
 * same read after the bad frame are dropped, so the handler never sees a frame that follows a bad one. Other
 * failures pass on.
 *
 * <p>One instance per connection; its state is confined to the connection's loop.
 */
final class MalformedFrameCloser extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(MalformedFrameCloser.class);

    private final TransportListener listener;
    private final String connectionKind;
    private boolean rejected;

    /**
     * @param listener       receives a {@code frameRejected} when this connection is condemned
     * @param connectionKind how logs name this connection, e.g. "peer connection"
     */
    MalformedFrameCloser(TransportListener listener, String connectionKind) {
        this.listener = listener;
        this.connectionKind = connectionKind;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    /** Malformed input, from the codec or the framing below, closes the connection; other failures pass on. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof DecoderException)) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        if (rejected) {
            return;
        }
        rejected = true;
        listener.frameRejected();
        log.debug("closing {} from {}: {}", connectionKind, ctx.channel().remoteAddress(), cause.getMessage());
        ctx.close();
    }
}
