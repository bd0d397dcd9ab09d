package io.rattan.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.rattan.api.Address;
import io.rattan.api.Status;
import io.rattan.client.netty.EnvelopeCodec;
import io.rattan.core.codec.CodecException;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection to one gateway, shared by every request to it: requests are matched to replies by request id
 * through the pending table, so any number can be in flight at once and replies may come in any order. When the
 * connection closes (or never opens), every attempt still pending on it fails as retryable. Requests are written as
 * they come and flushed once per event-loop task: requests sent in one burst (from the loop, or queued to it from
 * callers' threads) share one flush, so one system call, instead of one each. A stream ({@link #openStream}, a
 * watch) stays registered under its request id for every frame that carries it, until it is ended or the connection
 * closes. Thread-safe.
 */
final class Connection {

    private static final Logger log = LoggerFactory.getLogger(Connection.class);
    private static final int LENGTH_FIELD_BYTES = 4;

    private final Gateway gateway;
    private final ChannelFuture connectFuture;
    private final ConcurrentMap<Long, Attempt> pending;
    private final ConcurrentMap<Long, StreamSink> streams;
    /** When the last reply arrived; a System.nanoTime value. */
    private final AtomicLong lastReadNanos;
    // Set while a flush is queued on the channel's loop; requests written meanwhile ride on it.
    private final AtomicBoolean flushQueued = new AtomicBoolean();
    // Set when the client closes the connection because an attempt timed out with nothing received meanwhile.
    private volatile boolean closedForSilence;

    private Connection(Gateway gateway, ChannelFuture connectFuture, ConcurrentMap<Long, Attempt> pending,
                       ConcurrentMap<Long, StreamSink> streams, AtomicLong lastReadNanos) {
        this.gateway = gateway;
        this.connectFuture = connectFuture;
        this.pending = pending;
        this.streams = streams;
        this.lastReadNanos = lastReadNanos;
    }

    /** Starts connecting to {@code gateway}; requests may be sent at once and go out when the connection is up. */
    static Connection open(Gateway gateway, Bootstrap template, MessageCodec codec, SslContext tls) {
        int frameBytesMax = codec.frameBytesMax();
        ConcurrentMap<Long, Attempt> pending = new ConcurrentHashMap<>();
        ConcurrentMap<Long, StreamSink> streams = new ConcurrentHashMap<>();
        // Starts in the past, so that a connection that never delivers anything counts as silent.
        AtomicLong lastReadNanos = new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 4);
        ChannelFuture connect = template.clone()
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ChannelPipeline p = ch.pipeline();
                        if (tls != null) {
                            p.addLast(tlsHandler(tls, ch, gateway.address()));
                        }
                        // The frame bound includes the length field, so it matches the codec's body bound exactly.
                        p.addLast(new LengthFieldBasedFrameDecoder(frameBytesMax + LENGTH_FIELD_BYTES,
                                0, LENGTH_FIELD_BYTES, 0, LENGTH_FIELD_BYTES));
                        p.addLast(EnvelopeCodec.withScratch(codec));
                        p.addLast(new ClientHandler(pending, streams, lastReadNanos));
                    }
                })
                .connect(gateway.address().host(), gateway.address().port());
        Connection c = new Connection(gateway, connect, pending, streams, lastReadNanos);
        AtomicBoolean established = new AtomicBoolean();
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                gateway.connectFailed();
            } else if (tls == null) {
                established.set(true);
                gateway.connected();
            } else {
                // Over TLS a gateway is reached once the handshake is done: one that fails it (a certificate for
                // another host or of another CA) counts as unreachable, and is suspended as one.
                connect.channel().pipeline().get(SslHandler.class).handshakeFuture().addListener(h -> {
                    if (h.isSuccess()) {
                        established.set(true);
                        gateway.connected();
                    } else {
                        gateway.connectFailed();
                    }
                });
            }
        });
        connect.channel().closeFuture().addListener(f -> {
            c.failAll();
            if (established.get()) {
                // An open connection closed: the gateway may have died (a refused reconnect will say so).
                gateway.connectionLost(c);
            }
        });
        return c;
    }

    /** TLS to {@code to}, checking that the gateway's certificate names the host dialed, as HTTPS does. */
    private static SslHandler tlsHandler(SslContext tls, Channel ch, Address to) {
        SslHandler handler = tls.newHandler(ch.alloc(), to.host(), to.port());
        SSLParameters parameters = handler.engine().getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        handler.engine().setSSLParameters(parameters);
        return handler;
    }

    /**
     * True once the connection has closed or failed to open; a closed connection is never reused. A connection that
     * failed to open counts as closed at once, before its channel is closed (Netty closes it in a listener that may
     * run after ours), so that the next use opens a new one.
     */
    boolean isClosed() {
        return !connectFuture.channel().isOpen() || (connectFuture.isDone() && !connectFuture.isSuccess());
    }

    /** True while the connection is open: it was established and has not closed. */
    boolean isConnected() {
        return connectFuture.isSuccess() && connectFuture.channel().isOpen();
    }

    /** Number of attempts waiting for a reply on this connection. */
    int pendingCount() {
        return pending.size();
    }

    /**
     * Registers {@code attempt} and sends its request once the connection is up. Failures (no connection, a failed
     * write, the connection closing) reach the attempt's {@link Attempt#onFailure}, possibly on this thread.
     */
    void send(Attempt attempt, Envelope request) {
        attempt.sentOn(this);
        pending.put(attempt.requestId(), attempt);
        if (connectFuture.channel().closeFuture().isDone()) {
            // The close already drained the table, perhaps before the put above: fail this attempt ourselves.
            fail(attempt, closedFailure());
            return;
        }
        write(request, failure -> fail(attempt, failure));
    }

    /**
     * Registers {@code sink} for every frame with {@code requestId} and sends {@code request} once the connection is
     * up. A failure to connect or write, or the connection's close, removes it and reaches
     * {@link StreamSink#onClosed}, possibly on this thread.
     */
    void openStream(long requestId, Envelope request, StreamSink sink) {
        streams.put(requestId, sink);
        if (connectFuture.channel().closeFuture().isDone()) {
            closeStream(requestId, sink, closedFailure());
            return;
        }
        write(request, failure -> closeStream(requestId, sink, failure));
    }

    /** Forgets the stream of {@code requestId}, and sends {@code farewell} (an unwatch) if not null and still open. */
    void endStream(long requestId, Envelope farewell) {
        streams.remove(requestId);
        if (farewell != null && isConnected()) {
            write(farewell, failure -> { });
        }
    }

    /** Streams registered here; for tests. */
    int streamCount() {
        return streams.size();
    }

    private void closeStream(long requestId, StreamSink sink, RattanException failure) {
        if (streams.remove(requestId, sink)) {
            sink.onClosed(failure);
        }
    }

    /** Writes {@code frame} once connected, sharing the loop task's flush; a failure reaches {@code onFailure}. */
    private void write(Envelope frame, java.util.function.Consumer<RattanException> onFailure) {
        connectFuture.addListener(f -> {
            if (!f.isSuccess()) {
                onFailure.accept(connectFailure(f.cause()));
                return;
            }
            Channel channel = connectFuture.channel();
            channel.write(frame).addListener(w -> {
                if (!w.isSuccess()) {
                    onFailure.accept(writeFailure(w.cause()));
                }
            });
            if (flushQueued.compareAndSet(false, true)) {
                // Queued behind the write (and behind writes other threads queued before it): one flush for all.
                try {
                    channel.eventLoop().execute(() -> {
                        flushQueued.set(false);
                        channel.flush();
                    });
                } catch (RejectedExecutionException e) {
                    // The client is closing; the channel closes with its loop and fails what is pending.
                    flushQueued.set(false);
                }
            }
        });
    }

    /** Withdraws {@code attempt}; true when it was still pending here. */
    boolean forget(Attempt attempt) {
        return pending.remove(attempt.requestId(), attempt);
    }

    /**
     * Closes the connection when nothing at all has arrived on it since {@code sinceNanos} (a System.nanoTime
     * value). Called when an attempt started then has timed out, it tells a busy gateway (still answering other
     * requests) from a hung one, or a dead host whose connection never reset, which would otherwise cost every
     * later call an attempt timeout. A slow gateway with nothing else to answer loses its connection too; that
     * costs a reconnect, nothing more.
     */
    void closeIfSilentSince(long sinceNanos) {
        if (lastReadNanos.get() - sinceNanos < 0 && connectFuture.channel().isOpen()) {
            log.debug("closing connection to gateway {}: nothing received during a timed-out attempt",
                    gateway.address());
            closedForSilence = true;
            close();
        }
    }

    /** Closes the connection; pending attempts fail as retryable. */
    void close() {
        connectFuture.channel().close();
    }

    private void fail(Attempt attempt, RattanException failure) {
        if (pending.remove(attempt.requestId(), attempt)) {
            attempt.onFailure(failure);
        }
    }

    private void failAll() {
        RattanException failure = closedFailure();
        for (Attempt attempt : pending.values()) {
            if (closedForSilence) {
                // Not its own timeout: the attempt's call may retry it without spending a retry (Call).
                attempt.takenDown();
            }
            fail(attempt, failure);
        }
        for (var e : streams.entrySet()) {
            closeStream(e.getKey(), e.getValue(), failure);
        }
    }

    private RattanException closedFailure() {
        if (connectFuture.isDone() && !connectFuture.isSuccess()) {
            return connectFailure(connectFuture.cause());
        }
        return new RattanException(Status.UNAVAILABLE, "connection to gateway " + gateway.address() + " closed"
                + (closedForSilence ? " by the client: nothing arrived during another attempt's timeout" : ""));
    }

    private RattanException connectFailure(Throwable cause) {
        return new RattanException(Status.UNAVAILABLE,
                "cannot connect to gateway " + gateway.address() + ": " + describe(cause), cause);
    }

    private RattanException writeFailure(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof CodecException) {
                // The request itself breaks a bound of the wire protocol: no gateway will take it.
                return new RattanException(Status.BAD_REQUEST, "request cannot be encoded: " + t.getMessage(), t);
            }
        }
        return new RattanException(Status.UNAVAILABLE,
                "cannot send to gateway " + gateway.address() + ": " + describe(cause), cause);
    }

    private static String describe(Throwable t) {
        return t == null ? "unknown cause" : t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }
}
