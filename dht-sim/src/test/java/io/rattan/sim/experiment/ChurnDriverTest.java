package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The churn driver in a plain world: what each kind of event does to the membership, and the floor it keeps. */
class ChurnDriverTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;

    private static VirtualWorld world(int nodes) {
        VirtualWorld world = new VirtualWorld(5, OpenDhtTable.experimentConfig(), LatencyModel.constant(20_000_000L));
        world.addNodes(nodes);
        world.runFor(10 * SECOND);
        return world;
    }

    @Test
    void newNodesJoinAndTheNodesThatLeftOrCrashedAreGone() {
        VirtualWorld world = world(40);
        ChurnPlan plan = ChurnPlan.draw(new Churn(6, 3, 3), 3 * MINUTE, 5);
        List<Integer> started = new ArrayList<>();
        ChurnDriver driver = new ChurnDriver(world, plan, 24, new SplittableRandom(1), started::add);
        driver.start();
        assertThat(world.runUntil(driver::finished, 4 * MINUTE)).isTrue();
        // Time for the last leave's hand-off and the last join.
        world.runFor(MINUTE);

        Churn.Counts c = driver.counts();
        assertThat(c.joins()).isEqualTo(plan.joins()).isPositive();
        assertThat(c.leaves()).isPositive();
        assertThat(c.crashes()).isPositive();
        assertThat(c.skippedLeaves() + c.skippedCrashes()).isZero();
        assertThat(started).isEqualTo(driver.added());
        assertThat(driver.added()).allSatisfy(i -> assertThat(i).isGreaterThanOrEqualTo(40));
        Set<Integer> taken = new HashSet<>(driver.left());
        taken.addAll(driver.crashed());
        assertThat(taken).hasSize(c.leaves() + c.crashes());
        assertThat(taken).allSatisfy(i -> assertThat(world.isAlive(i)).as("node %d", i).isFalse());
        for (int i : driver.added()) {
            if (!taken.contains(i)) {
                assertThat(world.isAlive(i)).isTrue();
                assertThat(world.node(i).isJoined()).as("node %d", i).isTrue();
            }
        }
        assertThat(c.joined()).isEqualTo(c.joins());
        assertThat(c.aliveAtEnd()).isEqualTo(40 + c.joins() - c.leaves() - c.crashes())
                .isEqualTo(world.liveIndexes().size()).isEqualTo(world.servingIndexes().size());
    }

    @Test
    void leavesAndCrashesStopAtTheFloorAndAreCountedAsSkipped() {
        VirtualWorld world = world(30);
        ChurnPlan plan = ChurnPlan.draw(new Churn(0, 30, 30), MINUTE, 8);
        ChurnDriver driver = new ChurnDriver(world, plan, 24, new SplittableRandom(2), i -> { });
        driver.start();
        world.runFor(2 * MINUTE);

        Churn.Counts c = driver.counts();
        int events = plan.events().size();
        assertThat(events).isGreaterThan(20);
        assertThat(c.leaves() + c.crashes()).isEqualTo(30 - 24);
        assertThat(c.skippedLeaves() + c.skippedCrashes()).isEqualTo(events - 6);
        assertThat(world.servingIndexes()).hasSize(24);
        assertThat(c.minServing()).isEqualTo(ChurnDriver.minServing(OpenDhtTable.experimentConfig())).isEqualTo(24);
    }
}
