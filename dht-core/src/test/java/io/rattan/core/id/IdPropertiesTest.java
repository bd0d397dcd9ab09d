package io.rattan.core.id;

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
    void distanceIsTheShorterWayRound(@ForAll("ids") Id a, @ForAll("ids") Id b) {
        BigInteger d = big(a).subtract(big(b)).mod(RING);
        assertThat(big(a.distanceTo(b))).isEqualTo(d.min(RING.subtract(d).mod(RING)));
    }

    @Property
    void hexAndBytesRoundTripAndOrderIsUnsigned(@ForAll("ids") Id a, @ForAll("ids") Id b) {
        assertThat(Id.fromHex(a.toHex())).isEqualTo(a);
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
