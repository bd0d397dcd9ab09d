package io.rattan.core.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.net.Contact;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OneHopRouterTest {

    private static final long MS = 1_000_000L;

    private static Contact node(String hexPrefix, int port) {
        return new Contact(Id.fromHex(hexPrefix + "0".repeat(40 - hexPrefix.length())), new Address("n", port));
    }

    private static GetReply naming(List<Contact> holders) {
        return new GetReply(Status.OK, List.of(), Bytes.EMPTY, 0, "", Cost.ZERO, holders);
    }

    private final Contact a = node("10", 1);
    private final Contact b = node("11", 2);
    private final Contact c = node("13", 3);
    private final Contact own = node("f0", 4);
    private final Id key = Id.fromHex("11" + "0".repeat(38));

    @Test
    void anEmptyRouterSendsEverythingToTheFallback() {
        assertThat(new OneHopRouter(16).targets(key, 3, own)).containsExactly(own);
    }

    @Test
    void measuredReplicasComeFirstFastestFirstThenTheRestByClosenessThenTheFallback() {
        OneHopRouter router = new OneHopRouter(16);
        router.answered(own, naming(List.of(a, b, c)), 80 * MS, false);
        // Nothing measured: closest to the key first.
        assertThat(router.targets(key, 3, own)).containsExactly(b, a, c, own);
        router.answered(c, naming(List.of(a, b, c)), 30 * MS, true);
        router.measured(a, 50 * MS);
        assertThat(router.targets(key, 3, own)).containsExactly(c, a, b, own);
        // A gateway's own knowledge of a neighbour's RTT ranks a replica the router never asked.
        Map<Id, Long> neighbours = Map.of(b.id(), 5 * MS, a.id(), 1 * MS);
        assertThat(router.targets(key, 3, own, id -> neighbours.getOrDefault(id, -1L)))
                .as("the router's own measurements win over the neighbour RTT").containsExactly(b, c, a, own);
    }

    @Test
    void theHedgeWaitsAFifthMoreThanTheRoundTripToTheFirstTargetAtMostTheEndToEndThreshold() {
        OneHopRouter router = new OneHopRouter(16);
        router.answered(own, naming(List.of(a, b, c)), 80 * MS, false);
        router.measured(a, 40 * MS);
        assertThat(router.hedgeAfterNanos(a, 500 * MS, id -> -1)).isEqualTo(53 * MS);
        assertThat(router.hedgeAfterNanos(a, 50 * MS, id -> -1)).as("never later than end to end")
                .isEqualTo(50 * MS);
        assertThat(router.hedgeAfterNanos(b, 500 * MS, id -> -1)).as("delay unknown: end to end")
                .isEqualTo(500 * MS);
        assertThat(router.hedgeAfterNanos(b, 500 * MS, id -> id.equals(b.id()) ? 10 * MS : -1))
                .as("a neighbour's RTT stands in for a delay never measured").isEqualTo(17 * MS);
        assertThat(router.hedgeAfterNanos(a, 500 * MS, id -> 10 * MS)).as("the router's own measurement wins")
                .isEqualTo(53 * MS);
    }

    @Test
    void aOneHopGetHedgesToItsSecondTargetThenToItsThird() {
        OneHopRouter router = new OneHopRouter(16);
        router.answered(own, naming(List.of(a, b, c)), 80 * MS, false);
        router.measured(a, 40 * MS);
        router.measured(c, 10 * MS);
        assertThat(router.hedgeWaitsNanos(List.of(c, a, b, own), 500 * MS, id -> -1))
                .containsExactly(17 * MS, 53 * MS);
        assertThat(router.hedgeWaitsNanos(List.of(c, own), 500 * MS, id -> -1)).containsExactly(17 * MS);
        assertThat(router.hedgeWaitsNanos(List.of(own), 500 * MS, id -> -1)).as("only the fallback is known")
                .containsExactly(500 * MS);
    }

    @Test
    void aTargetThatFailsIsForgotten() {
        OneHopRouter router = new OneHopRouter(16);
        router.answered(own, naming(List.of(a, b, c)), 80 * MS, false);
        router.answered(b, new ErrorReply(Status.TIMEOUT, "no answer"), 1_000 * MS, true);
        assertThat(router.targets(key, 3, own)).doesNotContain(b).endsWith(own);
        assertThat(router.image().contains(b.id())).isFalse();
    }

    private static GetReply forwardedNaming(List<Contact> holders) {
        return new GetReply(Status.OK, List.of(), Bytes.EMPTY, 1, "", Cost.ZERO, holders);
    }

    @Test
    void aReplicaThatForwardedAKeyIsLeftOutForKeysAsFarOutOnThatSideUntilItAnswersOneThere() {
        OneHopRouter router = new OneHopRouter(16);
        Id near = Id.fromHex("12" + "0".repeat(38));
        Id far = Id.fromHex("12" + "8".repeat(38));
        Id nearer = Id.fromHex("11" + "8".repeat(38));
        Id otherSide = Id.fromHex("0f" + "0".repeat(38));
        router.answered(near, own, naming(List.of(a, b, c)), 80 * MS, false);
        assertThat(router.targets(near, 3, own)).as("nothing learned of where a answers").contains(a);
        // a (0x10…) forwarded a get for 0x12…, clockwise of it: its own leaf set does not reach that far.
        router.answered(near, a, forwardedNaming(List.of(a, b, c)), 2 * MS, false);
        assertThat(router.image().contains(a.id())).as("still a holder: the answer named it").isTrue();
        assertThat(router.targets(near, 3, own)).containsExactly(c, b, own);
        assertThat(router.targets(far, 3, own)).as("farther out on that side").doesNotContain(a);
        assertThat(router.targets(nearer, 3, own)).as("nearer: a may cover it").contains(a);
        assertThat(router.targets(otherSide, 3, own)).as("the other side is another arc end").contains(a);
        assertThat(router.hedgeWaitsNanos(router.targets(near, 3, own), 500 * MS, id -> -1))
                .as("no hedge is sent to a replica that would forward it").hasSize(2);

        // a answers a key out there itself: its leaf set grew, the arc with it.
        router.answered(far, a, naming(List.of(a, b, c)), 2 * MS, true);
        assertThat(router.targets(near, 3, own)).contains(a);
    }

    @Test
    void aNodeForgottenMakesEveryArcBeLearnedAgainAndArcsExpire() {
        OneHopRouter router = new OneHopRouter(16);
        Id near = Id.fromHex("12" + "0".repeat(38));
        router.answered(near, a, forwardedNaming(List.of(a, b, c)), 2 * MS, false);
        assertThat(router.targets(near, 3, own)).doesNotContain(a);
        router.forget(b);
        assertThat(router.targets(near, 3, own)).as("a neighbour gone may widen a's arc").contains(a);

        router.answered(near, a, forwardedNaming(List.of(a, b, c)), 2 * MS, false);
        for (long i = 0; i < AnswerArcs.EXPIRY_ANSWERS; i++) {
            router.answered(near, c, naming(List.of(a, b, c)), 2 * MS, true);
        }
        assertThat(router.targets(near, 3, own)).as("not expired yet").doesNotContain(a);
        router.answered(near, c, naming(List.of(a, b, c)), 2 * MS, true);
        assertThat(router.targets(near, 3, own)).as("asked again after the expiry").contains(a);
    }

    @Test
    void aReplicaWhoseEveryKeyOnASideWasForwardedLeavesOnlyTheFallback() {
        OneHopRouter router = new OneHopRouter(16);
        router.answered(key, a, forwardedNaming(List.of(a)), 2 * MS, false);
        assertThat(router.targets(key, 1, own)).containsExactly(own);
    }
}
