package io.rattan.sim.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Liars in the fault simulator (issue 39): two of 20 nodes run one attack each, with no fault injected, so that only
 * the lies can break a rule. An attack with a complete defence must never break its rule, one with a partial defence
 * ({@link Attack#defenceComplete}: a liar among the key's replicas may still succeed) at most a tenth as often as with
 * it planted off and only where a liar is one of the key's k replicas or the get's gateway, and each at least five
 * times with the defence planted off ({@link Attack#defenceOff}). One
 * without a defence (a forged value from one of the key's replicas: docs/security.md) must show as its rule. The
 * same seed without liars must break nothing. When a defence lands, its attack names the bug that plants it off.
 */
class LiarsFaultTest {

    private static final long SEED = 3;

    @Test
    void eachAttackIsCaughtOrFarRarerWithItsDefenceAndNothingBreaksWithoutLiars() throws Exception {
        List<FaultRunConfig> runs = new ArrayList<>();
        runs.add(run(Liars.NONE, PlantedBug.NONE));
        for (Attack a : Attack.values()) {
            runs.add(run(new Liars(0.1, EnumSet.of(a)), PlantedBug.NONE));
            if (a.defenceOff() != null) {
                runs.add(run(new Liars(0.1, EnumSet.of(a)), a.defenceOff()));
            }
        }
        List<FaultRunResult> results = TwoAtATime.run("liars", runs);
        FaultRunResult honest = results.get(0);
        assertThat(honest.failed()).as(honest.summaryLine()).isFalse();
        FaultRunResult defended = null;
        for (FaultRunResult r : results.subList(1, results.size())) {
            Attack a = r.config().liars().attacks().iterator().next();
            assertThat(r.lies().liars()).as(r.summaryLine()).hasSize(2);
            assertThat(r.lies().told().get(a)).as(r.summaryLine()).isPositive();
            if (a.defenceOff() == null) {
                assertThat(r.count(a.caughtBy())).as("%s: %s", a.flag(), r.summaryLine()).isPositive();
            } else if (r.config().bug() == PlantedBug.NONE) {
                defended = r;
                if (a.defenceComplete()) {
                    // A complete defence holds where no fault is in force.
                    assertThat(r.count(a.caughtBy())).as("%s defended: %s", a.flag(), r.summaryLine()).isZero();
                }
                // What is left of a partial defence is the stated limit: a liar among the key's replicas.
                assertThat(r.beyondTheLimits(a.caughtBy())).as("%s defended, beyond the limits: %s", a.flag(),
                        r.summaryLine()).isZero();
            } else {
                // Planted off, the attack must show: the defence is what stopped it, not the seed.
                assertThat(r.count(a.caughtBy())).as("%s with its defence off: %s; on: %s", a.flag(),
                        r.summaryLine(), defended.summaryLine()).isGreaterThanOrEqualTo(5)
                        .isGreaterThanOrEqualTo(10 * defended.count(a.caughtBy()));
            }
        }
    }

    @Test
    void theAttacksParseAsTheCommandLineSpellsThem() {
        assertThat(Attack.parse("all")).isEqualTo(EnumSet.allOf(Attack.class));
        assertThat(Attack.parse("fake-ack, forged-value")).isEqualTo(Set.of(Attack.FAKE_ACK, Attack.FORGED_VALUE));
        assertThat(new Liars(0.1, Attack.parse("fake-remove")).flags())
                .isEqualTo(" --liars 0.1 --attacks fake-remove");
        assertThat(new Liars(0.01, Attack.parse("all")).count(20)).isEqualTo(1);
        assertThat(Liars.NONE.count(20)).isZero();
        assertThatThrownBy(() -> Attack.parse("fake-ack,nope"))
                .hasMessageContaining("unknown attack 'nope'");
        assertThatThrownBy(() -> new Liars(0.6, Attack.parse("all")))
                .hasMessageContaining("0..0.5");
    }

    /**
     * Seed 3 without faults, 3 virtual minutes; 10 for the attacks on removes, which come later in the workload (a
     * value is removed once acknowledged and read): three minutes hold too few for the planted-off runs to show
     * (3 lies succeeded with fake-remove's defence off, 5 with binding-race's).
     */
    private static FaultRunConfig run(Liars liars, PlantedBug bug) {
        boolean removes = liars.attacks().equals(EnumSet.of(Attack.FAKE_REMOVE))
                || liars.attacks().equals(EnumSet.of(Attack.BINDING_RACE));
        int minutes = removes ? 10 : 3;
        return new FaultRunConfig(SEED, 20, minutes, Profile.NONE, bug, false, false, false,
                FaultRunConfig.LEAF_SET_HALF, liars);
    }
}
