package io.rattan.node.netty;

import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link TransportListener} that passes every report on and also counts the frames rejected, so that a server can
 * answer for its own connections whatever listener it was given. Thread-safe.
 */
public final class CountingListener implements TransportListener {

    private final TransportListener next;
    private final LongAdder framesRejected = new LongAdder();
    private final LongAdder[] refused = new LongAdder[Refusal.values().length];
    private final LongAdder framesRefused = new LongAdder();

    /** @param next receives every report after it is counted */
    public CountingListener(TransportListener next) {
        this.next = next;
        for (int i = 0; i < refused.length; i++) {
            refused[i] = new LongAdder();
        }
    }

    /** Refusals of one kind so far. */
    public long refusals(Refusal refusal) {
        return refused[refusal.ordinal()].sum();
    }

    @Override
    public void refused(Refusal refusal) {
        refused[refusal.ordinal()].increment();
        next.refused(refusal);
    }

    /** Frames rejected so far. */
    public long framesRejected() {
        return framesRejected.sum();
    }

    @Override
    public void bytesSent(long bytes) {
        next.bytesSent(bytes);
    }

    @Override
    public void bytesReceived(long bytes) {
        next.bytesReceived(bytes);
    }

    @Override
    public void frameRejected() {
        framesRejected.increment();
        next.frameRejected();
    }

    @Override
    public void frameDropped(DropReason reason) {
        next.frameDropped(reason);
    }

    @Override
    public void peerFrameRefused(RefusalReason reason) {
        framesRefused.increment();
        next.peerFrameRefused(reason);
    }

    /** Peer frames the handshake rules refused so far. */
    public long peerFramesRefused() {
        return framesRefused.sum();
    }
}
