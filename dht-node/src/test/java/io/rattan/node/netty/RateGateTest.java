package io.rattan.node.netty;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.base.Ticker;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rattan.node.netty.TransportListener.Refusal;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The peer port's rate gate on a manual clock: a connection counts against its source IP until its handshake proves a
 * node id, and against that id after, on every connection that proves it.
 */
class RateGateTest {

    private final AtomicLong nanos = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final RateGate gate = new RateGate(3, 2, new TransportListener() {
        @Override
        public void refused(Refusal refusal) {
            if (refusal == Refusal.RATE) {
                dropped.incrementAndGet();
            }
        }
    }, new Ticker() {
        @Override
        public long read() {
            return nanos.get();
        }
    });

    @Test
    void unverifiedFramesCountPerIpAndVerifiedOnesPerProvenNodeId() {
        // Embedded channels all have the same remote address: two connections from one IP.
        EmbeddedChannel a = new EmbeddedChannel(gate);
        EmbeddedChannel b = new EmbeddedChannel(gate);
        a.writeInbound("a1");
        b.writeInbound("b1");
        b.writeInbound("b2");
        assertThat((Object) a.readInbound()).isEqualTo("a1");
        assertThat((Object) b.readInbound()).isEqualTo("b1");
        assertThat((Object) b.readInbound()).isNull();
        assertThat(dropped).hasValue(1);

        // Proven: each connection now draws on its node id's bucket (3 a second), not the IP's empty one.
        RateGate.verified(a, "node-1");
        RateGate.verified(b, "node-2");
        for (int i = 0; i < 4; i++) {
            a.writeInbound("a" + i);
            b.writeInbound("b" + i);
        }
        assertThat(drain(a)).isEqualTo(3);
        assertThat(drain(b)).isEqualTo(3);
        assertThat(dropped).hasValue(3);

        // Another connection that proves node-1 shares node-1's bucket, whatever address it comes from.
        EmbeddedChannel c = new EmbeddedChannel(gate);
        RateGate.verified(c, "node-1");
        c.writeInbound("c1");
        assertThat((Object) c.readInbound()).isNull();
        assertThat(dropped).hasValue(4);

        // A second later every bucket is full again.
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
        c.writeInbound("c2");
        assertThat((Object) c.readInbound()).isEqualTo("c2");
        assertThat(gate.peersTracked()).isEqualTo(2);
        assertThat(gate.ipsTracked()).isEqualTo(1);
    }

    @Test
    void minusOneTurnsEitherRateOff() {
        RateGate off = new RateGate(-1, -1, TransportListener.NONE);
        EmbeddedChannel stranger = new EmbeddedChannel(off);
        EmbeddedChannel peer = new EmbeddedChannel(off);
        RateGate.verified(peer, "node-1");
        for (int i = 0; i < 10_000; i++) {
            stranger.writeInbound(i);
            peer.writeInbound(i);
        }
        assertThat(drain(stranger)).isEqualTo(10_000);
        assertThat(drain(peer)).isEqualTo(10_000);
        assertThat(off.sendersTracked()).isZero();
    }

    private static int drain(EmbeddedChannel ch) {
        int n = 0;
        while (ch.readInbound() != null) {
            n++;
        }
        return n;
    }
}
