package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A suspect whose address refuses connections is declared dead at once, its probe ended ({@link FailureDetector});
 * a refusal alone, or at another address, declares nobody dead. On a {@link MembershipRig}.
 */
class RefusedPeerTest extends MembershipRig {

    private final Contact c = at(near(5), "10.0.0.5", 4000);

    private long waitNanos() {
        return config.rtoMaxMillis() * 1_000_000L;
    }

    private void measured() {
        members.heard(c);
        for (int i = 0; i < 8; i++) {
            members.sampleRtt(c.id(), 20_000_000L);
        }
    }

    @Test
    void aSuspectWhoseAddressRefusesIsDeclaredDeadAtOnceAndItsProbeEnds() {
        measured();
        members.peerTimedOut(c);
        assertThat(members.isNeighbour(c.id())).as("suspected, not dead").isTrue();

        members.refused(c.address());

        assertThat(members.isNeighbour(c.id())).as("declared dead").isFalse();
        assertThat(members.leafMembers()).doesNotContain(c);
        scheduler.runFor(waitNanos() + SECOND);
        assertThat(pingsTo(c.address())).as("the probe alone: its resends were cancelled").hasSize(1);
    }

    @Test
    void aMemberNotSuspectedIsKeptWhenItsAddressRefuses() {
        measured();

        members.refused(c.address());

        assertThat(members.isNeighbour(c.id())).isTrue();
        assertThat(members.usable(c)).isTrue();
    }

    @Test
    void aRefusalAtAnotherPortOfTheSameHostLeavesTheSuspectToItsProbe() {
        measured();
        members.peerTimedOut(c);

        members.refused(new Address("10.0.0.5", 4001));

        assertThat(members.isNeighbour(c.id())).as("still suspected only").isTrue();
        scheduler.runFor(waitNanos() + 1);
        assertThat(members.isNeighbour(c.id())).as("declared dead by its probe").isFalse();
        assertThat(pingsTo(c.address())).as("the probe and its three resends").hasSize(4);
    }

    /** Each death is counted once, with its cause: a neighbour in both tables is one death. */
    @Test
    void eachDeathIsCountedOnceWithItsCause() {
        List<Boolean> refusedDeaths = new ArrayList<>();
        NodeListener listener = new NodeListener() {
            @Override
            public void peerDeclaredDead(boolean refused) {
                refusedDeaths.add(refused);
            }
        };
        Membership m = HandBuiltNode.of(at(SELF, "10.0.0.1", 4000), config, scheduler, listener, new SentLog())
                .members();
        Contact other = at(near(-5), "10.0.0.6", 4000);
        m.heard(c);
        m.heard(other);
        assertThat(m.tableEntries()).contains(c);
        assertThat(m.leafMembers()).contains(c);

        m.peerTimedOut(c);
        m.refused(c.address());
        m.refused(c.address());
        m.peerTimedOut(other);
        scheduler.runFor(waitNanos() + 1);

        assertThat(refusedDeaths).as("c on its refusal, other when its probe gave up").containsExactly(true, false);
    }
}
