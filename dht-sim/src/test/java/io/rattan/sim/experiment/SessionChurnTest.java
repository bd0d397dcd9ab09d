package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Proof 4 of issue 17, CI size: 200 nodes, exponential sessions with a median of 6 min for 10 virtual minutes, then
 * 1.4 min for 10 more, values read throughout, with k = 8 copies (the OpenDHT experiment's). At the real node's
 * k = 4 some seeds lose values at a 1.4 min median (seeds 1 to 6: 8 of 300 values lost in all with every branch
 * merged, 5 with repair on suspicion alone; at most 4 in one run): a holder crashes about every 121 s / 4, and repair
 * takes seconds (p90 10 to 12 s, tails to a minute), so by chance all four copies sometimes die inside one repair
 * window; at k = 8 that chance is below 1e-3 values a run (docs/testing.md, "k = 4 over seeds"). The full size
 * (1000 nodes, two simulated hours) is {@code ./rattan sim churn}; docs/testing.md has the figures.
 */
class SessionChurnTest {

    @Test
    void valuesStayReadableUnderBamboosChurn() {
        long cpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        SessionChurn.Result r = new SessionChurn(200, 8, 300, 5, 1,
                List.of(new SessionChurn.Phase(6, 10), new SessionChurn.Phase(1.4, 10)), System.out::println).run();
        System.out.print(SessionChurnCommand.report(r, 200, (System.nanoTime() - wall) / 1e9,
                (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu) / 1e9));

        SessionChurn.PhaseResult six = r.phases().get(0);
        SessionChurn.PhaseResult fast = r.phases().get(1);
        assertThat(six.churn().crashes()).as("crashes at a 6 min median").isGreaterThan(100);
        assertThat(fast.churn().crashes()).as("crashes at a 1.4 min median").isGreaterThan(500);
        assertThat(six.gets()).isGreaterThan(2_500);
        assertThat(six.firstTryRatio()).as("gets that return the value at the first try, 6 min median")
                .isGreaterThanOrEqualTo(0.999);
        assertThat(fast.firstTryRatio()).as("gets that return the value at the first try, 1.4 min median")
                .isGreaterThanOrEqualTo(0.99);
        assertThat(fast.lost()).as("values on no live node").isZero();
    }
}
