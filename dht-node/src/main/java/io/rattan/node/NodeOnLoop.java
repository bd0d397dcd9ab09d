package io.rattan.node;

import io.netty.channel.EventLoop;
import io.rattan.api.Address;
import io.rattan.api.Status;
import io.rattan.core.env.NodeEnv;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.net.Contact;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.gateway.WatchHandle;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core {@link Node} as its loop holds it: created and started there, fed its inputs there (peer frames and client
 * requests, through the slow-node hook when it is armed), and stopped there, after which every input is dropped. It
 * exists because the node and its stopped flag are confined to the loop: this class is the one place that reads and
 * writes them, and every method but {@link #start}, {@link #call} and {@link #serve} must run on the loop.
 */
final class NodeOnLoop {

    static final long START_TIMEOUT_MILLIS = 10_000;

    // RattanNode's logger: its lines keep the name operators and log filters know them by.
    private static final Logger log = LoggerFactory.getLogger(RattanNode.class);

    private final EventLoop loop;
    private final LoopGate gate;
    // Null unless the slow-node hook was asked for (InboundSlowness).
    private final InboundStall stall;
    // The node's contact, read when a message names it; null until the node has one.
    private final Supplier<Contact> contact;

    // Confined to the loop.
    private Node node;
    private boolean stopped;
    private MetricsRefresh timers;

    NodeOnLoop(EventLoop loop, LoopGate gate, InboundStall stall, Supplier<Contact> contact) {
        this.loop = loop;
        this.gate = gate;
        this.stall = stall;
        this.contact = contact;
    }

    /**
     * Creates the node on the loop and starts it with {@code bootstrap} (with {@code moreToCome}, names are being
     * resolved: {@link Node#start(List, boolean)}), then {@code timers}; waits up to 10 s. A node that fails to start
     * is stopped: it takes no input.
     */
    void start(NodeConfig config, NodeEnv env, NodeMetrics metrics, List<Address> bootstrap, boolean moreToCome,
               MetricsRefresh timers) throws IOException {
        CompletableFuture<Void> started = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                this.timers = timers;
                node = new Node(config, contact.get(), env, metrics);
                node.start(bootstrap, moreToCome);
                timers.start();
                started.complete(null);
            } catch (RuntimeException | Error e) {
                stopped = true;
                started.completeExceptionally(e);
            }
        });
        try {
            started.get(START_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException("node " + contact.get() + " failed to start", cause);
        } catch (TimeoutException e) {
            throw new IOException("node " + contact.get() + " did not start within " + START_TIMEOUT_MILLIS + " ms",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting node " + contact.get(), e);
        }
    }

    /** On the loop: the node, or null before it exists and once it has stopped. */
    Node live() {
        return stopped ? null : node;
    }

    /** On the loop: false once the node has stopped (or failed to start). */
    boolean running() {
        return !stopped;
    }

    /** On the loop: the node; fails when it is not running. */
    Node require() {
        if (node == null || stopped) {
            throw new IllegalStateException("node " + contact.get() + " is not running");
        }
        return node;
    }

    /** Runs {@code f} on the loop with the node; fails once the node is stopped. */
    <T> CompletableFuture<T> call(Function<Node, T> f) {
        return gate.onLoop(() -> node != null && !stopped, result -> {
            try {
                result.complete(f.apply(node));
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
    }

    /**
     * Runs {@code serve} on the loop with the node and the reply's completer, as an input (through the slow-node
     * hook); turns a node failure into INTERNAL, and a node not running into UNAVAILABLE. Never fails.
     */
    CompletableFuture<Message> serve(Message clientRequest, BiConsumer<Node, Consumer<Message>> serve) {
        CompletableFuture<Message> reply = gate.reply();
        boolean posted = gate.post(() -> handle(() -> {
            if (node == null || stopped) {
                reply.complete(notRunning());
                return;
            }
            try {
                serve.accept(node, reply::complete);
            } catch (RuntimeException e) {
                log.error("{}: node failed on a client {}", contact.get(), clientRequest.type(), e);
                reply.complete(new ErrorReply(Status.INTERNAL, "the node failed on this request"));
            }
        }));
        if (!posted) {
            reply.complete(notRunning());
        }
        return reply;
    }

    /**
     * Starts a client's watch of a key in {@code namespace} on the loop, as an input (through the slow-node hook); the handle ends it. A node not
     * running ends it at once.
     */
    WatchHandle watch(String namespace, ClientWatch w, Consumer<WatchEvent> sink) {
        AtomicLong id = new AtomicLong(-1);
        Runnable unwatch = () -> {
            long was = id.getAndSet(0);
            if (was > 0 && node != null && !stopped) {
                node.unwatch(namespace, was);
            }
        };
        boolean posted = gate.post(() -> handle(() -> {
            if (node == null || stopped) {
                sink.accept(WatchEvent.ended(Status.UNAVAILABLE, notRunning().detail()));
            } else {
                long started = node.watch(namespace, w, sink);
                if (!id.compareAndSet(-1, started)) {
                    // Closed before it started: end it now.
                    node.unwatch(namespace, started);
                }
            }
        }));
        if (!posted) {
            sink.accept(WatchEvent.ended(Status.UNAVAILABLE, notRunning().detail()));
            return () -> { };
        }
        return () -> gate.post(unwatch);
    }

    /**
     * The transport's connection to {@code to} was refused ({@link Node#peerRefused}); on the loop. A slow node hears
     * it behind its queue, as its timers fire, not as a message that its slowness may drop.
     */
    void peerRefused(Address to) {
        Runnable tell = () -> {
            if (node != null && !stopped) {
                node.peerRefused(to);
            }
        };
        if (stall == null) {
            tell.run();
        } else {
            stall.afterQueue(tell);
        }
    }

    /** A frame from a peer, on the loop. Frames that arrive before the node exists or after it stopped are dropped. */
    void receive(Envelope envelope) {
        handle(() -> {
            if (node != null && !stopped) {
                node.receive(envelope);
            }
        });
    }

    /** On the loop: starts the graceful leave; {@code left} completes when it is done (at once if not running). */
    void leave(CompletableFuture<Void> left) {
        if (node == null || stopped) {
            left.complete(null);
            return;
        }
        try {
            node.leave(() -> left.complete(null));
        } catch (RuntimeException e) {
            left.completeExceptionally(e);
        }
    }

    /** On the loop: stops the node and its timers; afterwards every input is dropped. */
    void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        if (timers != null) {
            timers.stop();
        }
        if (node != null) {
            try {
                node.stop();
            } catch (RuntimeException e) {
                log.warn("{}: node failed to stop cleanly", contact.get(), e);
            }
        }
    }

    /** The reply to a client request the node cannot serve because it is not running. */
    static ErrorReply notRunning() {
        return new ErrorReply(Status.UNAVAILABLE, "node is not running");
    }

    /**
     * Re-arms the slow-node hook so that its periods count from {@code epochMillis}; false (and nothing done) when the
     * node replays no period (no trace, or none of its own).
     */
    CompletableFuture<Boolean> armSlowTrace(long epochMillis) {
        if (stall == null) {
            return CompletableFuture.completedFuture(false);
        }
        CompletableFuture<Boolean> armed = new CompletableFuture<>();
        loop.execute(() -> {
            stall.arm(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(epochMillis - System.currentTimeMillis()));
            log.info("{}: slow-node hook re-armed at {} ms since the epoch", contact.get(), epochMillis);
            armed.complete(true);
        });
        return armed;
    }

    /** Runs one input of the node (on the loop): at once, or as the slow-node hook says when it is armed. */
    private void handle(Runnable input) {
        if (stall == null) {
            input.run();
        } else {
            stall.submit(input);
        }
    }
}
