package io.rattan.core.slow;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class SlowTracePropertiesTest {

    @Property(tries = 300)
    void everyScheduleReadsBackAsWritten(@ForAll("schedules") List<SlowPeriod> periods) throws IOException {
        StringWriter out = new StringWriter();
        SlowTrace.write(periods, out);

        assertThat(SlowTrace.read(new StringReader(out.toString()))).isEqualTo(periods);
    }

    @Provide
    Arbitrary<List<SlowPeriod>> schedules() {
        return period().list().ofMaxSize(20);
    }

    private static Arbitrary<SlowPeriod> period() {
        Arbitrary<Integer> node = Arbitraries.integers().between(0, Integer.MAX_VALUE);
        Arbitrary<Long> start = Arbitraries.longs().between(0, Long.MAX_VALUE / 2);
        Arbitrary<Long> length = Arbitraries.longs().between(1, Long.MAX_VALUE / 2);
        return Combinators.combine(node, start, length, effect())
                .as((n, s, l, e) -> new SlowPeriod(n, s, s + l, e));
    }

    private static Arbitrary<Distribution> effect() {
        Arbitrary<Double> positive = anyDouble(Double.MIN_VALUE, 1e12);
        Arbitrary<Distribution> pareto = Combinators.combine(positive, positive, positive)
                .as((a, b, c) -> new Distribution.Pareto(a, b, a + c));
        Arbitrary<Distribution> fixed = anyDouble(0, 1e12).map(Distribution.Fixed::new);
        Arbitrary<Distribution> drop = anyDouble(0, 1).map(Distribution.Drop::new);
        return Arbitraries.oneOf(pareto, fixed, drop);
    }

    /**
     * Every double in [min, max], at full precision: jqwik's own doubles() stop at 2 decimals by default. The bit
     * patterns of non-negative doubles are ordered like their values.
     */
    private static Arbitrary<Double> anyDouble(double min, double max) {
        return Arbitraries.longs().between(Double.doubleToLongBits(min), Double.doubleToLongBits(max))
                .map(Double::longBitsToDouble);
    }
}
