package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.core.node.OwnedRule.Outcome;
import io.rattan.core.owned.SignedBytes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class OwnedRuleTest {

    private static final Bytes A = Bytes.utf8("a").sha256();
    private static final Bytes B = Bytes.utf8("b").sha256();
    private static final Bytes NONE = SignedBytes.EMPTY_DATA_HASH;

    @Test
    void anOwnersWriteReplacesExtendsRepeatsOrIsRefused() {
        OwnedVersion held = new OwnedVersion(5, false, A, 100);
        assertThat(OwnedRule.write(null, held)).isEqualTo(Outcome.STORE);
        assertThat(OwnedRule.write(held, new OwnedVersion(6, false, B, 50))).isEqualTo(Outcome.STORE);
        assertThat(OwnedRule.write(held, new OwnedVersion(5, false, A, 200))).isEqualTo(Outcome.STORE);
        assertThat(OwnedRule.write(held, new OwnedVersion(5, false, A, 100))).isEqualTo(Outcome.SAME);
        assertThat(OwnedRule.write(held, new OwnedVersion(5, false, A, 90))).isEqualTo(Outcome.SAME);
        assertThat(OwnedRule.write(held, new OwnedVersion(5, false, B, 200))).isEqualTo(Outcome.CONFLICT);
        assertThat(OwnedRule.write(held, new OwnedVersion(5, true, NONE, 200))).isEqualTo(Outcome.CONFLICT);
        assertThat(OwnedRule.write(held, new OwnedVersion(4, false, A, 200))).isEqualTo(Outcome.STALE);
        assertThat(OwnedRule.write(held, new OwnedVersion(6, true, NONE, 100))).isEqualTo(Outcome.STORE);
        assertThat(OwnedRule.write(held, new OwnedVersion(6, true, NONE, 99))).isEqualTo(Outcome.SHORT_TOMBSTONE);
    }

    @Test
    void sequencesCompareUnsigned() {
        OwnedVersion high = new OwnedVersion(-1L, false, A, 100);
        OwnedVersion low = new OwnedVersion(Long.MAX_VALUE, false, A, 100);
        assertThat(OwnedRule.write(low, high)).isEqualTo(Outcome.STORE);
        assertThat(OwnedRule.write(high, low)).isEqualTo(Outcome.STALE);
        assertThat(OwnedRule.supersedes(high, low)).isTrue();
        assertThat(OwnedRule.supersedes(low, high)).isFalse();
    }

    @Test
    void aCopyReplacesOnlyAGreaterVersion() {
        OwnedVersion held = new OwnedVersion(5, false, A, 100);
        assertThat(OwnedRule.supersedes(held, null)).isTrue();
        assertThat(OwnedRule.supersedes(held, held)).isFalse();
        assertThat(OwnedRule.supersedes(new OwnedVersion(4, true, NONE, 999), held)).isFalse();
        assertThat(OwnedRule.supersedes(new OwnedVersion(5, true, NONE, 1), held)).isTrue();
        assertThat(OwnedRule.supersedes(new OwnedVersion(5, false, A, 101), held)).isTrue();
    }

    @Test
    void digestsOrderVersionsBySequenceThenATombstone() {
        assertThat(OwnedRule.compareDigests(2, false, 1, true)).isPositive();
        assertThat(OwnedRule.compareDigests(-1L, false, 1, false)).as("unsigned").isPositive();
        assertThat(OwnedRule.compareDigests(1, true, 1, false)).isPositive();
        assertThat(OwnedRule.compareDigests(1, false, 1, true)).isNegative();
        assertThat(OwnedRule.compareDigests(1, false, 1, false)).isZero();
    }

    /** Replicas that are brought the same copies in any order keep the same version: the greatest. */
    @Property
    void copiesInAnyOrderConverge(@ForAll @Size(min = 1, max = 12) List<@From("versions") OwnedVersion> versions,
                                  @ForAll long shuffleSeed) {
        List<OwnedVersion> other = new ArrayList<>(versions);
        Collections.shuffle(other, new Random(shuffleSeed));
        OwnedVersion first = fold(versions);
        assertThat(fold(other)).isEqualTo(first);
        for (OwnedVersion v : versions) {
            assertThat(OwnedRule.supersedes(v, first)).isFalse();
            assertThat(Long.compareUnsigned(v.seq(), first.seq())).isLessThanOrEqualTo(0);
        }
    }

    private static OwnedVersion fold(List<OwnedVersion> copies) {
        OwnedVersion held = null;
        for (OwnedVersion v : copies) {
            if (OwnedRule.supersedes(v, held)) {
                held = v;
            }
        }
        return held;
    }

    @Provide
    Arbitrary<OwnedVersion> versions() {
        Arbitrary<Long> seq = Arbitraries.longs().between(-3, 3);
        Arbitrary<Boolean> removed = Arbitraries.of(true, false);
        Arbitrary<Bytes> data = Arbitraries.of(A, B, NONE);
        Arbitrary<Long> expiry = Arbitraries.longs().between(0, 5);
        return Combinators.combine(seq, removed, data, expiry).as(OwnedVersion::new);
    }
}
