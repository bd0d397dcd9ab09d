package io.rattan.core.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HostAssignmentTest {

    private static int[] placement(HostAssignment a) {
        return IntStream.range(0, a.nodes()).map(a::hostOf).toArray();
    }

    @Test
    void theSameSeedGivesTheSamePlacementAndAnotherSeedAnother() {
        assertThat(placement(HostAssignment.random(300, 490, 7))).isEqualTo(placement(HostAssignment.random(300, 490,
                7)));
        assertThat(placement(HostAssignment.random(300, 490, 7))).isNotEqualTo(placement(HostAssignment.random(300,
                490, 8)));
    }

    @Test
    void withNoMoreNodesThanHostsEveryNodeHasItsOwnHost() {
        HostAssignment a = HostAssignment.random(490, 490, 1);
        Set<Integer> used = new HashSet<>();
        for (int node = 0; node < a.nodes(); node++) {
            assertThat(a.hostOf(node)).isBetween(0, 489);
            used.add(a.hostOf(node));
        }
        assertThat(used).hasSize(490);
        assertThat(placement(a)).isNotEqualTo(IntStream.range(0, 490).toArray());
    }

    @Test
    void withMoreNodesThanHostsLoadsDifferByAtMostOne() {
        HostAssignment a = HostAssignment.random(2000, 490, 3);
        int[] load = new int[490];
        for (int node = 0; node < a.nodes(); node++) {
            load[a.hostOf(node)]++;
        }
        assertThat(Arrays.stream(load).min().getAsInt()).isEqualTo(4);
        assertThat(Arrays.stream(load).max().getAsInt()).isEqualTo(5);
        assertThat(Arrays.stream(load).sum()).isEqualTo(2000);
    }

    @Test
    void nodesOnOneHostSeeTheIntraHostRtt() {
        LatencyMatrix m = LatencyMatrix.planetLab();
        HostAssignment a = HostAssignment.random(980, 490, 5);
        // Round-robin: node i and node i + hosts share a host.
        assertThat(a.sameHost(10, 500)).isTrue();
        assertThat(a.rttMillis(m, 10, 500)).isEqualTo(HostAssignment.DEFAULT_INTRA_HOST_RTT_MILLIS);
        assertThat(a.rttMillis(m, 10, 10)).isEqualTo(HostAssignment.DEFAULT_INTRA_HOST_RTT_MILLIS);
        assertThat(a.rttMillis(m, 10, 11)).isEqualTo(m.rttMillis(a.hostOf(10), a.hostOf(11)));
        assertThat(HostAssignment.random(980, 490, 5, 2.0).rttMillis(m, 10, 500)).isEqualTo(2.0);
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> HostAssignment.random(0, 10, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HostAssignment.random(5, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HostAssignment.random(5, 5, 1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HostAssignment.random(5, 5, 1).hostOf(5))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }
}
