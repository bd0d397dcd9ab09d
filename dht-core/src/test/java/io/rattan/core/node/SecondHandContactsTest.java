package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.LeafExchangeReply;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Contacts learned second hand are probed before they are used or advertised: built from a node's parts without a
 * {@link Node} or a network (the outbox sends into a list, answers are fed back as {@link Node#receive} would: the
 * verified sender is heard, then the reply is matched), with time moved by hand.
 */
class SecondHandContactsTest extends MembershipRig {

    /** {@code from} answers the ping that was sent to {@code asked}, as the node would take it in. */
    private void pong(Address asked, Contact from) {
        long id = pingsTo(asked).get(0).envelope().requestId();
        members.heard(from);
        outbox.onReply(new Envelope(from, id, new Pong(List.of(), 0)));
    }

    @Test
    void aContactNamedInAnExchangeIsPingedAndEntersOnlyOnceItAnswers() {
        Contact named = at(near(5), "10.0.0.5", 4000);

        LeafExchangeReply reply = members.answerExchange(new LeafExchange(List.of(named)));

        assertThat(reply.leafSet()).as("advertised before its probe").doesNotContain(named);
        assertThat(members.leafMembers()).isEmpty();
        assertThat(members.isNeighbour(named.id())).isFalse();
        assertThat(pingsTo(named.address())).hasSize(1);
        assertThat(members.probes().isProbing(named.id())).isTrue();

        pong(named.address(), named);

        assertThat(members.leafMembers()).containsExactly(named);
        assertThat(members.probes().probing()).isZero();
        assertThat(members.answerExchange(new LeafExchange(List.of())).leafSet()).containsExactly(named);
    }

    @Test
    void aContactThatDoesNotAnswerNeverEntersAndLeavesNoState() {
        Contact named = at(near(5), "10.0.0.5", 4000);
        members.learn(named);
        assertThat(pingsTo(named.address())).hasSize(1);

        scheduler.runFor(10 * SECOND);

        assertThat(members.isNeighbour(named.id())).isFalse();
        assertThat(members.probes().probing()).isZero();
        assertThat(members.knowsPeer(named.id())).isFalse();
        assertThat(members.leafMembers()).isEmpty();
    }

    @Test
    void onlyTheIdNamedCanAnswerItsProbeAndWhatEntersIsTheContactThatAnswered() {
        Contact named = at(near(5), "10.0.0.5", 4000);
        members.learn(named);
        // Another node at that address answers: the probe is not its to answer.
        Contact other = at(near(900), "10.0.0.5", 4000);
        pong(named.address(), other);
        assertThat(members.isNeighbour(named.id())).isFalse();
        assertThat(members.probes().isProbing(named.id())).isTrue();

        // The named id lives elsewhere and answers from there (the transport verified that address).
        Contact real = at(named.id(), "10.0.0.6", 4100);
        pong(named.address(), real);
        assertThat(members.leafMembers()).contains(real).doesNotContain(named);
        assertThat(members.probes().probing()).isZero();
    }

    @Test
    void aContactHeardDirectlyEntersAtOnceWithoutAProbe() {
        Contact direct = at(near(5), "10.0.0.5", 4000);
        members.heard(direct);
        assertThat(members.leafMembers()).containsExactly(direct);
        assertThat(pings()).isEmpty();
        // Named again by a neighbour: known first hand, nothing to probe.
        members.learn(direct);
        assertThat(pings()).isEmpty();
    }

    @Test
    void oneHostsFloodOfAdjacentIdsIsProbedAtMostNAtATimeAndNeverAdvertised() {
        List<Contact> flood = new ArrayList<>();
        for (int i = 1; i <= 4096; i++) {
            flood.add(at(near(i % 2 == 0 ? i : -i), "10.0.0.9", 1024 + i));
        }
        LeafExchangeReply reply = members.answerExchange(new LeafExchange(flood));

        assertThat(pings()).hasSize(config.idsPerIp());
        assertThat(members.probes().probing()).isEqualTo(config.idsPerIp());
        assertThat(reply.leafSet()).isEmpty();

        scheduler.runFor(10 * SECOND);
        members.answerExchange(new LeafExchange(flood));
        assertThat(pings()).as("the next flood, once the first probes failed").hasSize(2 * config.idsPerIp());
        assertThat(members.leafMembers()).isEmpty();
    }

    @Test
    void manyHostsFloodIsBoundedByTheCandidateSet() {
        List<Contact> flood = new ArrayList<>();
        for (int i = 1; i <= 4096; i++) {
            flood.add(at(near(i % 2 == 0 ? i : -i), "10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255),
                    4000));
        }
        members.answerExchange(new LeafExchange(flood));

        assertThat(members.probes().probing()).isEqualTo(SecondHandProbes.CANDIDATES_MAX);
        assertThat(pings()).hasSize(SecondHandProbes.CANDIDATES_MAX);
        assertThat(members.leafMembers()).isEmpty();
    }

    @Test
    void aNodeHeardDirectlyFromOneHostStillHoldsNPlacesInTheLeafSet() {
        for (int i = 1; i <= 10; i++) {
            members.heard(at(near(i), "10.0.0.9", 1024 + i));
        }
        members.heard(at(near(50), "10.0.0.10", 4000));
        assertThat(members.leafMembers()).extracting(c -> c.address().host())
                .containsExactlyInAnyOrder("10.0.0.9", "10.0.0.9", "10.0.0.10");
    }

    @Test
    void whileJoiningContactsAreHeldThenPingedAtOnceDeepestRowFirstAndTheJoinWaitsForEveryAnswer() {
        members.probes().holdLearned();
        List<Contact> named = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            // Ids sharing i leading digits with this node, one host each.
            String hex = i == 0 ? "1" + "0".repeat(39) : "8" + "0".repeat(i - 1) + "1" + "0".repeat(39 - i);
            named.add(at(Id.fromHex(hex), "10.0.1." + (i + 1), 4000));
        }
        named.forEach(members::learn);
        assertThat(pings()).as("held while joining").isEmpty();
        assertThat(members.isNeighbour(named.get(3).id())).isFalse();

        boolean[] settled = {false};
        members.probes().releaseHeld(() -> settled[0] = true);

        List<Integer> rows = pings().stream().map(s -> named.stream().filter(c -> c.address().equals(s.to()))
                .findFirst().orElseThrow().id().sharedPrefixLength(SELF)).toList();
        assertThat(rows).hasSize(16).isSortedAccordingTo((a, b) -> Integer.compare(b, a));
        assertThat(settled[0]).isFalse();

        for (int i = 0; i < 8; i++) {
            pong(named.get(i).address(), named.get(i));
        }
        assertThat(settled[0]).as("half have answered").isFalse();
        scheduler.runFor(10 * SECOND);
        assertThat(settled[0]).as("the rest timed out").isTrue();
        for (int i = 0; i < 16; i++) {
            assertThat(members.isNeighbour(named.get(i).id())).as("contact %d", i).isEqualTo(i < 8);
        }

        // After the join, learned contacts are probed as they come.
        Contact later = at(near(3), "10.0.2.1", 4000);
        members.learn(later);
        assertThat(pingsTo(later.address())).hasSize(1);
    }
}
