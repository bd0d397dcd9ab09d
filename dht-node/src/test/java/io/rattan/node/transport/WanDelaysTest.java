package io.rattan.node.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Address;
import io.rattan.core.wan.HostAssignment;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.core.wan.OneWayDelay;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WanDelaysTest {

    private static final LatencyMatrix PLANETLAB = LatencyMatrix.planetLab();

    /** Peer addresses as {@code rattan cluster} gives them: three ports per node from 7400. */
    private static List<Address> peers(int n) {
        List<Address> peers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            peers.add(new Address("127.0.0.1", 7400 + 3 * i));
        }
        return peers;
    }

    /** The simulator places N nodes by {@code HostAssignment.random(N, matrix.hosts(), seed)} (OpenDhtTable). */
    @Test
    void nodesAreOnTheHostsTheSimulatorPutsThemOnWithTheSameSeed() {
        List<Address> peers = peers(16);
        for (long seed : new long[] {1, 7, 42}) {
            HostAssignment sim = HostAssignment.random(16, PLANETLAB.hosts(), seed);
            for (int self = 0; self < 16; self += 5) {
                WanDelays wan = new WanDelays(PLANETLAB, peers, self, seed, 0);
                for (int i = 0; i < 16; i++) {
                    assertThat(wan.hostOf(peers.get(i))).as("seed %d, node %d", seed, i).isEqualTo(sim.hostOf(i));
                }
            }
        }
        assertThat(new WanDelays(PLANETLAB, peers, 0, 1, 0).hostOf(peers.get(3)))
                .isNotEqualTo(new WanDelays(PLANETLAB, peers, 0, 2, 0).hostOf(peers.get(3)));
    }

    @Test
    void withoutJitterAFrameWaitsHalfTheRoundTripBetweenTheHosts() {
        List<Address> peers = peers(8);
        HostAssignment sim = HostAssignment.random(8, PLANETLAB.hosts(), 3);
        WanDelays wan = new WanDelays(PLANETLAB, peers, 2, 3, 0);
        for (int i = 0; i < 8; i++) {
            if (i == 2) {
                continue;
            }
            double rtt = PLANETLAB.rttMillis(sim.hostOf(2), sim.hostOf(i));
            assertThat(wan.rttMillis(peers.get(i))).isEqualTo(rtt);
            assertThat(wan.delayNanos(peers.get(i))).isEqualTo(Math.round(rtt * 1e6 / 2));
        }
    }

    @Test
    void anAddressThatIsNoNodeIsNotDelayed() {
        WanDelays wan = new WanDelays(PLANETLAB, peers(4), 0, 1, OneWayDelay.DEFAULT_JITTER_FRACTION);
        Address client = new Address("127.0.0.1", 40123);

        assertThat(wan.delayNanos(client)).isZero();
        assertThat(wan.hostOf(client)).isEqualTo(-1);
        assertThat(wan.rttMillis(client)).isZero();
    }

    @Test
    void jitterIsTheSimulatorsDrawnFromAStreamOfThisNodesOwn() {
        List<Address> peers = peers(4);
        WanDelays a = new WanDelays(PLANETLAB, peers, 1, 9, 0.10);
        WanDelays again = new WanDelays(PLANETLAB, peers, 1, 9, 0.10);
        WanDelays other = new WanDelays(PLANETLAB, peers, 2, 9, 0.10);
        double half = a.rttMillis(peers.get(0)) * 1e6 / 2;
        List<Long> drawn = new ArrayList<>();
        double sum = 0;
        for (int i = 0; i < 5_000; i++) {
            long d = a.delayNanos(peers.get(0));
            drawn.add(d);
            sum += d;
            assertThat(again.delayNanos(peers.get(0))).isEqualTo(d);
        }
        assertThat(sum / drawn.size()).isBetween(half * 0.99, half * 1.01);
        assertThat(drawn.stream().distinct().count()).isGreaterThan(1_000);
        List<Long> others = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            others.add(other.delayNanos(peers.get(0)));
        }
        assertThat(others).isNotEqualTo(drawn.subList(0, 10));
    }

    @Test
    void nodesSharingAHostSeeTheIntraHostRoundTrip() throws IOException {
        LatencyMatrix two = LatencyMatrix.parse(new StringReader("0\t80\n80\t0\n"), "two.tsv");
        List<Address> peers = peers(4);
        WanDelays wan = new WanDelays(two, peers, 0, 1, 0);
        // Round-robin over two hosts: nodes 0 and 2 share one, 1 and 3 the other.
        assertThat(wan.delayNanos(peers.get(2)))
                .isEqualTo(Math.round(HostAssignment.DEFAULT_INTRA_HOST_RTT_MILLIS * 1e6 / 2));
        assertThat(wan.delayNanos(peers.get(1))).isEqualTo(40_000_000L);
        assertThat(wan.toString()).isEqualTo("wide area: node 0 of 4 on host " + wan.hostOf(peers.get(0))
                + " of 2, seed 1, jitter 0.00");
    }

    @Test
    void rejectsWhatCannotBeACluster() {
        List<Address> peers = peers(3);
        assertThatThrownBy(() -> new WanDelays(PLANETLAB, peers, 3, 1, 0)).hasMessageContaining("not in 0..2");
        assertThatThrownBy(() -> new WanDelays(PLANETLAB, peers, -1, 1, 0)).hasMessageContaining("not in 0..2");
        assertThatThrownBy(() -> new WanDelays(PLANETLAB, List.of(), 0, 1, 0)).hasMessageContaining("no peer");
        assertThatThrownBy(() -> new WanDelays(PLANETLAB, List.of(peers.get(0), peers.get(1), peers.get(0)), 0, 1,
                0)).hasMessageContaining("listed twice (nodes 0 and 2)");
        assertThatThrownBy(() -> new WanDelays(PLANETLAB, peers, 0, 1, -0.5)).hasMessageContaining("jitterFraction");
    }
}
