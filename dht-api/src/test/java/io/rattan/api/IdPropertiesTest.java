package io.rattan.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Id's 160-bit ring arithmetic agrees with BigInteger arithmetic modulo 2^160. */
class IdPropertiesTest {

    private static final BigInteger RING = BigInteger.ONE.shiftLeft(160);

    @Provide
    Arbitrary<Id> ids() {
        Arbitrary<Long> words = Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(0L, -1L, 1L, Long.MIN_VALUE));
        Arbitrary<Long> low = Arbitraries.oneOf(Arbitraries.longs().between(0, 0xFFFF_FFFFL),
                Arbitraries.of(0L, 0xFFFF_FFFFL));
        return net.jqwik.api.Combinators.combine(words, words, low).as(Id::new);
    }

    private static BigInteger big(Id id) {
        return new BigInteger(1, id.toBytes());
    }

    @Property
    void minusAndPlusAreModularArithmetic(@ForAll("ids") Id a, @ForAll("ids") Id b) {
        assertThat(big(a.minus(b))).isEqualTo(big(a).subtract(big(b)).mod(RING));
        assertThat(big(a.plus(b))).isEqualTo(big(a).add(big(b)).mod(RING));
    }

    @Property
    void allocationFreeComparisonsAgreeWithTheArithmetic(@ForAll("ids") Id a, @ForAll("ids") Id b,
                                                          @ForAll("ids") Id key) {
        int byDistance = a.distanceTo(key).compareTo(b.distanceTo(key));
        boolean closer = byDistance != 0 ? byDistance < 0
                : !a.equals(b) && a.minus(key).compareTo(b.minus(key)) < 0;
        assertThat(a.isCloserTo(key, b)).isEqualTo(closer);
        assertThat(Integer.signum(key.compareClockwise(a, b)))
                .isEqualTo(Integer.signum(a.minus(key).compareTo(b.minus(key))));
    }

    @Property
    void allocationFreeComparisonsAgreeNearTheKey(@ForAll("ids") Id key, @ForAll("ids") Id offset) {
        // Ids a tiny step either side of the key, and the antipode, where the two ways round are nearly equal.
        Id half = new Id(Long.MIN_VALUE, 0, 0);
        for (Id a : java.util.List.of(key, key.plus(offset), key.minus(offset), key.plus(half),
                key.plus(half).plus(new Id(0, 0, 1)), key.minus(half))) {
            for (Id b : java.util.List.of(key.plus(new Id(0, 0, 1)), key.minus(new Id(0, 0, 1)), key.plus(half),
                    key.minus(offset))) {
                int byDistance = a.distanceTo(key).compareTo(b.distanceTo(key));
                boolean closer = byDistance != 0 ? byDistance < 0
                        : !a.equals(b) && a.minus(key).compareTo(b.minus(key)) < 0;
                assertThat(a.isCloserTo(key, b)).isEqualTo(closer);
            }
        }
    }

    @Property
    void distanceIsTheShorterWayRound(@ForAll("ids") Id a, @ForAll("ids") Id b) {
        BigInteger d = big(a).subtract(big(b)).mod(RING);
        assertThat(big(a.distanceTo(b))).isEqualTo(d.min(RING.subtract(d).mod(RING)));
    }

    @Property
    void hexAndBytesRoundTripAndOrderIsUnsigned(@ForAll("ids") Id a, @ForAll("ids") Id b) {
        assertThat(Id.fromHex(a.toHex())).isEqualTo(a);
        assertThat(a.toHex()).isEqualTo(String.format("%040x", big(a)));
        assertThat(Id.fromBytes(a.toBytes())).isEqualTo(a);
        assertThat(Integer.signum(a.compareTo(b))).isEqualTo(big(a).compareTo(big(b)));
        int shared = a.sharedPrefixLength(b);
        String ha = a.toHex();
        String hb = b.toHex();
        int expected = 0;
        while (expected < 40 && ha.charAt(expected) == hb.charAt(expected)) {
            expected++;
        }
        assertThat(shared).isEqualTo(expected);
        assertThat(a.digit(Math.min(shared, 39))).isEqualTo(Character.digit(ha.charAt(Math.min(shared, 39)), 16));
    }
}
