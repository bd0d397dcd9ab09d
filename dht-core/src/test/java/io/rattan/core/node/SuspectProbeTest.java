package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A leaf-set member's probe is sent again while unanswered, 3 times at doubling intervals from
 * {@link Membership#PROBE_RESEND_MIN_NANOS} or the suspect's RTO (backed off by the suspicion), until its wait (the
 * RTO's cap) runs out: a partition
 * that heals while a suspect's first probe is lost ends its suspicion at the next resend, not at the wait's end with a
 * false death. The fault simulator traced a replica that answered a get 1.06 s after a heal without the put its two
 * suspects held (CI seed 9). On a {@link MembershipRig}.
 */
class SuspectProbeTest extends MembershipRig {

    private final Contact c = at(near(5), "10.0.0.5", 4000);

    private long waitNanos() {
        return config.rtoMaxMillis() * 1_000_000L;
    }

    /** A member this node has measured at {@code rttNanos} a round trip. */
    private void measured(long rttNanos) {
        members.heard(c);
        for (int i = 0; i < 8; i++) {
            members.sampleRtt(c.id(), rttNanos);
        }
    }

    @Test
    void aSuspectWhoseProbeWasLostIsProbedAgainAndItsAnswerEndsTheCut() {
        measured(20_000_000L);
        members.peerTimedOut(c);
        assertThat(members.usable(c)).isFalse();
        assertThat(pingsTo(c.address())).as("the probe").hasSize(1);

        scheduler.runFor(1_600_000_000L);
        List<Sent> pings = pingsTo(c.address());
        assertThat(pings).as("sent again 0.5 s and 1.5 s after it").hasSize(3);

        members.heard(c);
        outbox.onReply(new Envelope(c, pings.get(2).envelope().requestId(), new Pong(List.of(), 0)));

        assertThat(members.usable(c)).as("cleared").isTrue();
        assertThat(resumed).as("an answer to a probe sent over a second into the silence ends a cut")
                .containsExactly(c.id());
        scheduler.runFor(10 * SECOND);
        assertThat(members.isNeighbour(c.id())).as("not declared dead at the first probe's wait").isTrue();
        assertThat(pingsTo(c.address())).as("no probe after the answer").hasSize(3);
        members.peerTimedOut(c);
        assertThat(pingsTo(c.address())).as("the answered resend ended the probe: a new suspicion probes again")
                .hasSize(4);
    }

    @Test
    void aSuspectThatNeverAnswersIsDeclaredDeadAtTheWaitsEndAfterFourPings() {
        measured(20_000_000L);
        members.peerTimedOut(c);

        scheduler.runFor(waitNanos() - 1);
        assertThat(members.isNeighbour(c.id())).as("suspected until the wait ends").isTrue();
        scheduler.runFor(2);

        assertThat(members.isNeighbour(c.id())).as("declared dead").isFalse();
        assertThat(pingsTo(c.address())).as("the probe, then 0.5, 1.5 and 3.5 s after it").hasSize(4);
    }

    /** A slow node is suspected often; pings queue behind its work, so one whose RTO is long is pinged again once. */
    @Test
    void aSlowSuspectIsProbedAgainAtMostOnce() {
        measured(1_500_000_000L);
        members.peerTimedOut(c);

        scheduler.runFor(waitNanos() + 1);

        assertThat(pingsTo(c.address())).as("the probe and one resend").hasSize(2);
    }
}
