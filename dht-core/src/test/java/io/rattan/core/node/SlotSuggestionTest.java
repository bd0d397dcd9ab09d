package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualAddresses;
import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Proximity neighbour selection through pong suggestions. A node answering another node's ping suggests one of its
 * leaf-set members for the pinger's table slot that holds the answering node; the pinger measures it at its next
 * maintenance tick and keeps it when it is faster than the slowest candidate of a full slot. New nodes copy their
 * top rows from the nodes on their join path, so without this every node's row 0 holds the same few early nodes,
 * which then take a share of all table probes that grows with the overlay.
 */
class SlotSuggestionTest {

    private static final long MS = 1_000_000L;

    /** Nodes sit on a line: the delay between two grows with their distance, so "faster" means "nearer". */
    private static final LatencyModel LINE = (from, to, r) -> {
        long a = position(from);
        long b = position(to);
        return 2 * MS + Math.abs(a - b) * MS / 10;
    };

    private static long position(Address a) {
        return Math.floorMod(VirtualAddresses.index(a) * 7919L, 1000);
    }

    @Test
    void aPongSuggestsANodeOfTheSameSlotOfThePingersTable() {
        VirtualWorld world = new VirtualWorld(3, NodeConfig.defaults(), LINE);
        assertThat(world.addNodesInWaves(400, 64)).isZero();
        Map<Address, Id> ids = ids(world);
        int[] counts = new int[3];
        Map<Long, Address> pingers = new HashMap<>();
        world.network().observer((from, to, e) -> {
            if (e.body() instanceof Ping) {
                pingers.put(key(from, e.requestId()), to);
            }
            if (e.body() instanceof Pong p && e.sender() != null) {
                Address pingedFrom = pingers.get(key(to, e.requestId()));
                if (pingedFrom == null) {
                    // The ping went out before the observer was set.
                    return;
                }
                counts[0]++;
                for (Contact c : p.suggestions()) {
                    counts[1]++;
                    Id pinger = ids.get(to);
                    Id answering = ids.get(from);
                    int row = pinger.sharedPrefixLength(answering);
                    boolean sameSlot = pinger.sharedPrefixLength(c.id()) == row
                            && c.id().digit(row) == answering.digit(row);
                    counts[2] += sameSlot && !c.id().equals(pinger) && from.equals(pingedFrom) ? 1 : 0;
                }
            }
        });
        world.runFor(Duration.ofSeconds(20).toNanos());

        assertThat(counts[0]).as("pongs").isGreaterThan(2000);
        assertThat(counts[1]).as("suggestions").isGreaterThan(counts[0] / 4);
        assertThat(counts[2]).as("suggestions in the pinger's slot of the answering node").isEqualTo(counts[1]);
    }

    @Test
    void theEarliestNodesLoseTheirShareOfTableProbes() {
        VirtualWorld world = new VirtualWorld(5, NodeConfig.defaults(), LINE);
        int n = 1000;
        int earliest = 16;
        assertThat(world.addNodesInWaves(n, 256)).isZero();
        int[] pings = new int[2];
        world.network().observer((from, to, e) -> {
            if (e.body() instanceof Ping) {
                pings[0]++;
                pings[1] += VirtualAddresses.index(to) < earliest ? 1 : 0;
            }
        });
        world.runFor(Duration.ofSeconds(20).toNanos());
        double shareAfterJoins = (double) pings[1] / pings[0];
        world.runFor(Duration.ofMinutes(10).toNanos());
        pings[0] = 0;
        pings[1] = 0;
        world.runFor(Duration.ofSeconds(20).toNanos());
        double shareLater = (double) pings[1] / pings[0];

        // A fair share would be 16 / 1000; right after the joins the earliest 16 take several times that, and without
        // suggestions their share stays put, since a full slot only ever takes a measured node. Each node measures
        // one candidate every other second, so the tables turn over in minutes (3.5% here). Right after the joins it
        // was 7.5% while joiners copied their path's tables unverified; since issue 18 a joiner pings at most 64 of
        // the contacts it was named, deepest rows first, and only those that answer enter, so fewer early nodes
        // reach the top rows: 4.6%, still nearly 3 times the fair share.
        assertThat(shareAfterJoins).as("share of pings to the earliest nodes after the joins")
                .isGreaterThan(2.5 * earliest / n);
        // Ten minutes later it is 2.8% (from 4.6%): with fewer early nodes in the top rows to begin with, there is less
        // to fall (before issue 18: from 7.5% to under 4.5%). Still a fall of more than a third.
        assertThat(shareLater).as("the same share ten minutes later").isLessThan(shareAfterJoins * 0.65);
    }

    private static Map<Address, Id> ids(VirtualWorld world) {
        Map<Address, Id> ids = new HashMap<>();
        for (int i = 0; i < world.size(); i++) {
            ids.put(world.contact(i).address(), world.contact(i).id());
        }
        return ids;
    }

    private static long key(Address from, long requestId) {
        return (long) VirtualAddresses.index(from) << 40 ^ requestId;
    }
}
