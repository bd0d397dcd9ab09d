package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Neighbours declared dead are pinged again for a while, and come back only by answering: on a {@link MembershipRig}
 * (the outbox sends into a list, answers are fed back as the node takes them in), with time moved by hand and a
 * maintenance round each second.
 */
class LostContactsTest extends MembershipRig {

    /** {@code c} answers the last ping sent to it, as the node would take the answer in. */
    private void pongLast(Contact c) {
        List<Sent> pings = pingsTo(c.address());
        members.heard(c);
        outbox.onReply(new Envelope(c, pings.get(pings.size() - 1).envelope().requestId(), new Pong(List.of(), 0)));
    }

    /** A maintenance round each second, as the node runs them. */
    private void rounds(int seconds) {
        for (int i = 0; i < seconds; i++) {
            scheduler.runFor(SECOND);
            members.exchangeRound();
        }
    }

    /** {@code c} was a member and stopped answering: suspected, probed, declared dead. */
    private void dies(Contact c) {
        members.peerTimedOut(c);
        scheduler.runFor(config.rtoMaxMillis() * 1_000_000L + SECOND);
        assertThat(members.isNeighbour(c.id())).as("%s declared dead", c).isFalse();
    }

    @Test
    void aNeighbourDeclaredDeadIsPingedAgainAndComesBackOnlyByAnswering() {
        Contact c = at(near(5), "10.0.0.5", 4000);
        members.heard(c);
        dies(c);
        assertThat(members.lost().contains(c.id())).isTrue();
        int before = pingsTo(c.address()).size();

        rounds(2);

        assertThat(pingsTo(c.address())).as("pinged again").hasSize(before + 1);
        assertThat(members.leafMembers()).as("used before it answers").isEmpty();
        assertThat(members.answerExchange(new LeafExchange(List.of())).leafSet()).as("advertised before it answers")
                .isEmpty();

        pongLast(c);

        assertThat(members.leafMembers()).containsExactly(c);
        assertThat(members.lost().contains(c.id())).isFalse();
    }

    @Test
    void lostNeighboursBackTogetherMayBeAHealedPartitionAndBackApartAreNot() {
        Contact c = at(near(5), "10.0.0.5", 4000);
        Contact d = at(near(6), "10.0.0.6", 4000);
        Contact e = at(near(7), "10.0.0.7", 4000);
        List.of(c, d, e).forEach(members::heard);
        List.of(c, d, e).forEach(this::dies);

        members.heard(c);
        scheduler.runFor(2 * SECOND);
        members.heard(d);
        assertThat(members.lost().returnedWithin(10 * SECOND, 2)).as("back 2 s apart: slow nodes, say").isFalse();
        members.heard(e);
        assertThat(members.lost().returnedWithin(10 * SECOND, 2)).as("two back together").isTrue();
        scheduler.runFor(10 * SECOND);
        assertThat(members.lost().returnedWithin(10 * SECOND, 2)).as("the window passed").isFalse();
    }

    @Test
    void aLostNeighbourIsPingedLessAndLessOftenAndForgottenAfterTenMinutes() {
        Contact c = at(near(5), "10.0.0.5", 4000);
        members.heard(c);
        dies(c);
        int before = pingsTo(c.address()).size();

        rounds(60);
        int firstMinute = pingsTo(c.address()).size() - before;
        rounds(540);
        int tenMinutes = pingsTo(c.address()).size() - before;
        rounds(120);

        // At 0.5 s, then at doubling intervals capped at 60 s (each after a timeout and in a maintenance round): 6 in
        // the first minute, 15 in ten (with 2 s first: 4 and 13).
        assertThat(firstMinute).isBetween(5, 7);
        assertThat(tenMinutes).isBetween(12, 18);
        assertThat(pingsTo(c.address()).size() - before).as("pings after ten minutes").isEqualTo(tenMinutes);
        assertThat(members.lost().size()).isZero();
    }

    @Test
    void aNeighbourRestartedOnANewPortTakesItsPlaceWhileItKeepsTalking() {
        Contact old = at(near(5), "10.0.0.5", 4000);
        Contact restarted = at(near(5), "10.0.0.5", 4001);
        members.heard(old);
        // The old process is gone; the new one (a real node restarts on port 0) speaks twice a second, as its repair
        // and leaf-set rounds do: more often than a probe of the old address times out. Its messages are no sign of
        // life of the old address, so the old contact's probe fails and the new one gets in.
        for (int i = 0; i < 4 * config.rtoMaxMillis() / 1_000 + 4; i++) {
            members.heard(restarted);
            scheduler.runFor(SECOND / 2);
        }

        assertThat(members.leafMembers()).containsExactly(restarted);
        assertThat(pingsTo(old.address())).as("the old address probed").isNotEmpty();
    }

    @Test
    void aContactOnlyNamedSecondHandIsNeverPingedAgain() {
        Contact named = at(near(5), "10.0.0.5", 4000);
        members.learn(named);
        assertThat(pingsTo(named.address())).hasSize(1);

        rounds(120);

        assertThat(pingsTo(named.address())).as("its one probe, unanswered").hasSize(1);
        assertThat(members.lost().size()).isZero();
    }

    /** Two neighbours, a and b, declared dead 70 s ago: past the first minute, b's next ping is tens of seconds away. */
    private Contact[] twoLostAMinuteAgo() {
        Contact a = at(near(5), "10.0.0.5", 4000);
        Contact b = at(near(-5), "10.0.0.6", 4000);
        members.heard(a);
        members.heard(b);
        dies(a);
        dies(b);
        rounds(70);
        return new Contact[] {a, b};
    }

    @Test
    void whenOneLostNeighbourSpeaksAgainTheOthersArePingedAtOnce() {
        Contact[] lost = twoLostAMinuteAgo();
        Contact a = lost[0];
        Contact b = lost[1];
        int pingsOfB = pingsTo(b.address()).size();
        rounds(1);
        assertThat(pingsTo(b.address())).as("not due yet").hasSize(pingsOfB);

        // a speaks again (the partition between them healed): b may be reachable too, and is pinged at once.
        members.heard(a);
        assertThat(pingsTo(b.address())).as("pinged before the next maintenance round").hasSize(pingsOfB + 1);
        members.exchangeRound();

        assertThat(pingsTo(b.address())).as("one ping out at a time").hasSize(pingsOfB + 1);
        assertThat(members.isNeighbour(a.id())).isTrue();
        assertThat(members.isNeighbour(b.id())).isFalse();
    }

    @Test
    void aPingOutWhenAnotherLostNeighbourSpeaksAgainIsSentAgainAtItsTimeout() {
        Contact[] lost = twoLostAMinuteAgo();
        Contact a = lost[0];
        Contact b = lost[1];
        int pingsOfB = pingsTo(b.address()).size();
        while (pingsTo(b.address()).size() == pingsOfB) {
            rounds(1);
        }
        // b's ping is out, sent while the partition lasted, and lost to it; a speaks again (the partition healed).
        members.heard(a);
        assertThat(pingsTo(b.address())).as("one ping out at a time").hasSize(pingsOfB + 1);

        scheduler.runFor(config.rtoMaxMillis() * 1_000_000L + 1);

        assertThat(pingsTo(b.address())).as("pinged again at the timeout, not tens of seconds later")
                .hasSize(pingsOfB + 2);
    }

    @Test
    void aLostNeighbourTheGetsOfItsKeysAskIsPingedOneAtATimeAndAtMostOnceASecond() {
        Contact c = at(near(5), "10.0.0.5", 4000);
        members.heard(c);
        dies(c);
        scheduler.runFor(LostContacts.ASK_GAP_MAX_NANOS);
        int before = pingsTo(c.address()).size();
        members.lost().ask(c.id());
        members.lost().ask(c.id());
        assertThat(pingsTo(c.address())).as("one ping for two gets at once").hasSize(before + 1);

        // Each unanswered ping doubles the gap before the next, up to a second.
        for (int i = 0; i < 6; i++) {
            scheduler.runFor(LostContacts.ASK_GAP_MAX_NANOS);
            members.lost().ask(c.id());
        }
        assertThat(pingsTo(c.address())).as("a ping a second at most").hasSize(before + 7);
        scheduler.runFor(LostContacts.ASK_GAP_MAX_NANOS / 2);
        members.lost().ask(c.id());
        assertThat(pingsTo(c.address())).as("not within the gap").hasSize(before + 7);

        pongLast(c);
        assertThat(members.lost().contains(c.id())).as("back once it answers").isFalse();
        assertThat(members.leafMembers()).containsExactly(c);
    }

    @Test
    void whatIsRememberedIsBoundedInAllAndPerHost() {
        for (int i = 1; i <= 2 * LostContacts.MAX; i++) {
            members.lost().lost(at(near(i), "10.1." + (i >> 8) + "." + (i & 255), 4000));
        }
        assertThat(members.lost().size()).isEqualTo(LostContacts.MAX);

        build();
        for (int i = 1; i <= 10; i++) {
            members.lost().lost(at(near(i), "10.0.0.9", 1024 + i));
        }
        assertThat(members.lost().size()).isEqualTo(config.idsPerIp());

        rounds(2);
        assertThat(sent.stream().filter(s -> s.envelope().body() instanceof Ping).count())
                .as("pings to one host's lost ids").isEqualTo(config.idsPerIp());
    }
}
