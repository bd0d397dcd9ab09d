package io.rattan.client;

import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.ClientUnwatch;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import java.util.BitSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch of the client, carried from gateway to gateway: a registration ({@code CLIENT_WATCH}) at one gateway at
 * a time, whose events go through the {@link WatchView} to the listener. When the registration's connection fails,
 * or its gateway ends it with a transient status (UNAVAILABLE: the node stops, or no replica took the watch; TIMEOUT;
 * INTERNAL), the watch registers again at once through the next gateway that is not suspended (after a backoff when
 * the previous try failed too), with the position of the last event it heard after a READY: the same gateway resumes
 * exactly from it, another sends a snapshot that the view diffs. Any other end is final and told to the listener.
 * All its state is confined to its {@link SerialRunner}.
 */
final class WatchStream {

    private static final Logger log = LoggerFactory.getLogger(WatchStream.class);

    private final ClientRuntime runtime;
    private final Scope scope;
    private final Id key;
    private final ValueFilter filter;
    private final WatchListener listener;
    private final SerialRunner serial;
    private final WatchView view;
    private final BitSet tried = new BitSet();
    private volatile boolean ended;
    private volatile Registration current;
    private int gatewayIndex = -1;
    /** Registrations in a row that ended before their READY. */
    private int failures;
    private long resumeEpoch;
    private long resumeSeq;

    /** One registration at one gateway, under its own request id; frames of an old one are ignored. */
    private final class Registration implements StreamSink {
        final Gateway gateway;
        final long requestId;
        Connection connection;

        Registration(Gateway gateway, long requestId) {
            this.gateway = gateway;
            this.requestId = requestId;
        }

        @Override
        public void onFrame(Message frame) {
            serial.execute(() -> frame(this, frame));
        }

        @Override
        public void onClosed(RattanException failure) {
            serial.execute(() -> lost(this, failure));
        }
    }

    WatchStream(ClientRuntime runtime, Scope scope, Id key, ValueFilter filter, WatchListener listener) {
        this.runtime = runtime;
        this.scope = scope;
        this.key = key;
        this.filter = filter;
        this.listener = listener;
        this.serial = new SerialRunner(runtime);
        this.view = new WatchView(scope.name(), key, filter, new Guarded(), System::currentTimeMillis);
    }

    /** Starts the watch; its first registration is made on the serial runner. */
    Watch start() {
        serial.execute(this::register);
        return new Watch(this);
    }

    Id key() {
        return key;
    }

    String gatewayAddress() {
        Registration r = current;
        return r == null || ended ? null : r.gateway.address().host() + ":" + r.gateway.address().port();
    }

    boolean isEnded() {
        return ended;
    }

    void close() {
        if (ended) {
            return;
        }
        ended = true;
        serial.execute(() -> {
            Registration r = current;
            current = null;
            if (r != null && r.connection != null) {
                r.connection.endStream(r.requestId, new Envelope(null, runtime.nextRequestId(),
                        new ClientUnwatch(r.requestId)));
            }
        });
    }

    private void register() {
        if (ended) {
            return;
        }
        if (runtime.isClosed()) {
            finish(runtime.closedFailure());
            return;
        }
        int start = gatewayIndex < 0 ? runtime.nextStartIndex() : gatewayIndex + 1;
        gatewayIndex = runtime.chooseGateway(start, tried);
        tried.set(gatewayIndex);
        Registration r = new Registration(runtime.gateway(gatewayIndex), runtime.nextRequestId());
        current = r;
        view.begin();
        try {
            r.connection = r.gateway.connection();
        } catch (IllegalStateException e) {
            // The gateway was closed: the client is closing.
            current = null;
            finish(runtime.closedFailure());
            return;
        }
        r.connection.openStream(r.requestId, new Envelope(null, r.requestId,
                scope.wrap(new ClientWatch(key, filter, resumeEpoch, resumeSeq))), r);
    }

    private void frame(Registration r, Message frame) {
        if (r != current || ended) {
            return;
        }
        if (frame instanceof ErrorReply e) {
            ended(r, e.status(), e.detail());
            return;
        }
        if (!(frame instanceof WatchEvent e)) {
            ended(r, Status.INTERNAL, "the gateway answered a watch with " + frame.type());
            return;
        }
        if (e.kind() == WatchKind.ENDED) {
            ended(r, e.status(), e.detail());
            return;
        }
        view.apply(e);
        int forged = view.takeForged();
        if (forged > 0) {
            runtime.metrics().forged(forged);
        }
        if (view.registrationReady()) {
            // Only from a READY on is the position one to resume from: before it, a snapshot may be cut short.
            resumeEpoch = e.epoch();
            resumeSeq = e.seq();
            if (e.kind() == WatchKind.READY) {
                failures = 0;
                tried.clear();
                tried.set(gatewayIndex);
            }
        }
    }

    private void ended(Registration r, Status status, String detail) {
        current = null;
        r.connection.endStream(r.requestId, null);
        if (status == Status.UNAVAILABLE || status == Status.TIMEOUT || status == Status.INTERNAL) {
            log.debug("watch of {} ended by gateway {} ({} {}); moving on", key.shortHex(), r.gateway.address(),
                    status, detail);
            again();
        } else {
            finish(new RattanException(status, "watch of " + key.shortHex() + " ended by gateway "
                    + r.gateway.address() + ": " + detail));
        }
    }

    private void lost(Registration r, RattanException failure) {
        if (r != current || ended) {
            return;
        }
        current = null;
        log.debug("watch of {} lost gateway {}: {}", key.shortHex(), r.gateway.address(), failure.getMessage());
        again();
    }

    /** Registers again: at once after a registration that was READY, after a backoff after one that was not. */
    private void again() {
        if (runtime.isClosed()) {
            finish(runtime.closedFailure());
            return;
        }
        if (failures++ == 0) {
            register();
            return;
        }
        long delay = runtime.backoff().delayNanos(Math.min(failures, 30), ThreadLocalRandom.current());
        try {
            runtime.raceLoop().schedule(() -> serial.execute(this::register), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            finish(runtime.closedFailure());
        }
    }

    private void finish(RattanException cause) {
        if (ended) {
            return;
        }
        listenerCall(() -> listener.onEnded(cause));
        ended = true;
    }

    private void listenerCall(Runnable call) {
        if (ended) {
            return;
        }
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("a watch listener of {} threw", key.shortHex(), e);
        }
    }

    /** The listener as the view calls it: never after the watch ended, and a throw is logged, not passed on. */
    private final class Guarded implements WatchListener {
        @Override
        public void onValue(GetResult.Value value) {
            listenerCall(() -> listener.onValue(value));
        }

        @Override
        public void onReady() {
            listenerCall(listener::onReady);
        }

        @Override
        public void onRemoved(GetResult.Value value) {
            listenerCall(() -> listener.onRemoved(value));
        }

        @Override
        public void onExpired(GetResult.Value value) {
            listenerCall(() -> listener.onExpired(value));
        }
    }
}
