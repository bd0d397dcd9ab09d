package io.rattan.node.gateway.binary;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.rattan.api.Status;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.WatchHandle;
import io.rattan.node.netty.EnvelopeInitializer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watches of one binary client connection ({@code CLIENT_WATCH}), multiplexed by their request ids: each event
 * the node pushes goes out as a {@code WATCH_EVENT} frame with its watch's request id. At most {@code watchesMax} at
 * once (beyond: the new one ends at once, RATE_LIMITED); {@code CLIENT_UNWATCH} ends one, the connection's close ends
 * them all. A client that does not read its events is not buffered for without end: once more than
 * {@code pendingBytesMax} wait to be written, the connection is closed (its watches end). While it has watches, the
 * connection is not closed for being idle (a quiet key sends nothing). Confined to the connection's loop; the node's
 * events are brought there if they arrive elsewhere.
 */
final class ConnectionWatches {

    private static final Logger log = LoggerFactory.getLogger(ConnectionWatches.class);
    /** Stands for a watch whose handle the backend has not returned yet. */
    private static final WatchHandle STARTING = () -> { };

    private final GatewayBackend backend;
    private final int watchesMax;
    private final long pendingBytesMax;
    private final Map<Long, WatchHandle> byRequest = new HashMap<>();
    private final BiConsumer<Long, WatchEvent> out;
    private Channel channel;

    /**
     * @param out writes one event frame (request id, event) to the connection; called on its loop
     */
    ConnectionWatches(GatewayBackend backend, int watchesMax, long pendingBytesMax, BiConsumer<Long, WatchEvent> out) {
        this.backend = backend;
        this.watchesMax = watchesMax;
        this.pendingBytesMax = pendingBytesMax;
        this.out = out;
    }

    /** Starts the watch of request {@code requestId} on {@code ch}, of a key in {@code namespace}. */
    void watch(Channel ch, long requestId, String namespace, ClientWatch w) {
        this.channel = ch;
        if (byRequest.containsKey(requestId)) {
            out.accept(requestId, WatchEvent.ended(Status.BAD_REQUEST, "request id " + requestId
                    + " already names a watch on this connection"));
            return;
        }
        if (byRequest.size() >= watchesMax) {
            out.accept(requestId, WatchEvent.ended(Status.RATE_LIMITED, "this connection has its most watches, "
                    + watchesMax + "; end some, or watch on another connection"));
            return;
        }
        byRequest.put(requestId, STARTING);
        keepOpen();
        WatchHandle handle;
        try {
            handle = backend.watch(namespace, w, e -> onEvent(requestId, e));
        } catch (RuntimeException e) {
            log.warn("gateway backend failed to start watch {}", requestId, e);
            byRequest.remove(requestId);
            out.accept(requestId, WatchEvent.ended(Status.INTERNAL, "the watch could not start"));
            return;
        }
        if (byRequest.get(requestId) == STARTING) {
            byRequest.put(requestId, handle);
        } else {
            // Ended (or unwatched) while it started.
            handle.close();
        }
    }

    /** {@code CLIENT_UNWATCH}: ends that watch; unknown ids are ignored. */
    void unwatch(long requestId) {
        WatchHandle h = byRequest.remove(requestId);
        if (h != null) {
            h.close();
            keepOpen();
        }
    }

    /** The connection closed: every watch ends. */
    void closeAll() {
        List<WatchHandle> all = List.copyOf(byRequest.values());
        byRequest.clear();
        all.forEach(WatchHandle::close);
    }

    int count() {
        return byRequest.size();
    }

    private void onEvent(long requestId, WatchEvent e) {
        Channel ch = channel;
        if (ch != null && !ch.eventLoop().inEventLoop()) {
            ch.eventLoop().execute(() -> onEvent(requestId, e));
            return;
        }
        if (!byRequest.containsKey(requestId)) {
            return;
        }
        if (e.kind() == WatchKind.ENDED) {
            byRequest.remove(requestId);
            keepOpen();
        }
        if (ch == null || !ch.isActive()) {
            return;
        }
        ChannelOutboundBuffer pending = ch.unsafe().outboundBuffer();
        if (!ch.isWritable() && pending != null && pending.totalPendingWriteBytes() > pendingBytesMax) {
            log.info("closing client connection {}: {} bytes of watch events wait to be written (bound {})",
                    ch.remoteAddress(), pending.totalPendingWriteBytes(), pendingBytesMax);
            ch.close();
            return;
        }
        out.accept(requestId, e);
    }

    private void keepOpen() {
        if (channel != null) {
            channel.attr(EnvelopeInitializer.KEEP_WHILE_IDLE).set(!byRequest.isEmpty());
        }
    }
}
