package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The per-IP bound of the leaf set and of the routing table: one host that offers thousands of ids next to this
 * node (or next to a key it covers) holds N places, the nearest N of its ids; honest nodes keep the rest; ids at this
 * node's own host and hosts that are not IP literals (the virtual world's) are counted per host as well, except
 * this node's own, which is not bounded.
 */
class IdsPerIpBoundTest {

    private static final Id SELF = Id.fromHex("8000000000000000000000000000000000000000");
    private static final Contact ME = new Contact(SELF, new Address("10.0.0.1", 4000));

    /** An id {@code offset} steps of 2^100 clockwise of this node (negative: counter-clockwise). */
    private static Id near(long offset) {
        return offset >= 0 ? SELF.plus(new Id(0, offset << 36, 0)) : SELF.minus(new Id(0, -offset << 36, 0));
    }

    private static Contact at(Id id, String host, int port) {
        return new Contact(id, new Address(host, port));
    }

    private static long fromHost(List<Contact> members, String host) {
        return members.stream().filter(c -> HostKeys.of(c.address().host()).equals(HostKeys.of(host))).count();
    }

    @Test
    void oneHostFloodingAdjacentIdsHoldsNPlacesInTheLeafSet() {
        LeafSet leaves = new LeafSet(ME, 4, 2);
        List<Contact> honest = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            honest.add(at(near(100L * i), "10.0.1." + i, 4000));
            honest.add(at(near(-100L * i), "10.0.2." + i, 4000));
        }
        honest.forEach(leaves::add);
        // 4,096 ids of one host, each nearer this node than every honest member, on both sides.
        for (int i = 1; i <= 2048; i++) {
            leaves.add(at(near(i % 50 + 1), "10.0.0.9", 5000 + i));
            leaves.add(at(near(-(i % 50) - 1), "10.0.0.9", 9000 + i));
            assertThat(fromHost(leaves.members(), "10.0.0.9")).isLessThanOrEqualTo(2);
        }
        assertThat(fromHost(leaves.members(), "10.0.0.9")).isEqualTo(2);
        // Honest members pushed out while the host's ids moved in come back at the next exchange.
        honest.forEach(leaves::add);
        assertThat(leaves.members()).hasSize(8);
        // The attacker's two are its nearest ids; the honest nodes keep the other six places.
        assertThat(leaves.members()).filteredOn(c -> c.address().host().equals("10.0.0.9"))
                .extracting(Contact::id).containsExactlyInAnyOrder(near(1), near(-1));
    }

    @Test
    void aNearerIdOfAHostAtItsShareReplacesItsFarthestAndAFartherOneIsRefused() {
        LeafSet leaves = new LeafSet(ME, 4, 2);
        Contact a = at(near(10), "10.0.0.9", 1);
        Contact b = at(near(-20), "10.0.0.9", 2);
        leaves.add(a);
        leaves.add(b);

        assertThat(leaves.add(at(near(30), "10.0.0.9", 3))).as("farther than both").isFalse();
        assertThat(leaves.wouldTake(at(near(30), "10.0.0.9", 3))).isFalse();
        assertThat(leaves.wouldTake(at(near(5), "10.0.0.9", 4))).isTrue();
        assertThat(leaves.members()).as("wouldTake changes nothing").containsExactlyInAnyOrder(a, b);

        assertThat(leaves.add(at(near(5), "10.0.0.9", 4))).isTrue();
        assertThat(leaves.members()).extracting(Contact::id).containsExactlyInAnyOrder(near(10), near(5));
        assertThat(leaves.add(at(near(30), "10.0.0.10", 5))).as("another host").isTrue();
    }

    @Test
    void ipv6HostsAreCountedPerSlash64() {
        LeafSet leaves = new LeafSet(ME, 4, 2);
        for (int i = 1; i <= 6; i++) {
            leaves.add(at(near(i), "2001:db8:0:7::" + Integer.toHexString(i), 4000));
        }
        leaves.add(at(near(7), "2001:db8:0:8::1", 4000));
        assertThat(fromHost(leaves.members(), "2001:db8:0:7::1")).isEqualTo(2);
        assertThat(leaves.members()).extracting(Contact::id).contains(near(7));
    }

    @Test
    void thisNodesOwnHostIsNotBoundedNorIsAnyHostWithTheBoundOff() {
        LeafSet local = new LeafSet(at(SELF, "127.0.0.1", 4000), 4, 2);
        LeafSet unbounded = new LeafSet(ME, 4, -1);
        for (int i = 1; i <= 4; i++) {
            local.add(at(near(i), "127.0.0.1", 4000 + i));
            local.add(at(near(-i), "127.0.0.1", 5000 + i));
            unbounded.add(at(near(i), "10.0.0.9", 4000 + i));
            unbounded.add(at(near(-i), "10.0.0.9", 5000 + i));
        }
        assertThat(local.members()).as("a local cluster on one address").hasSize(8);
        assertThat(unbounded.members()).hasSize(8);
    }

    @Test
    void virtualHostsAreEachTheirOwnHost() {
        LeafSet leaves = new LeafSet(at(SELF, "node0", 1), 4, 1);
        for (int i = 1; i <= 4; i++) {
            leaves.add(at(near(i), "node" + i, i + 1));
            leaves.add(at(near(-i), "node" + (10 + i), i + 11));
        }
        assertThat(leaves.members()).hasSize(8);
    }

    @Test
    void aTableSlotHoldsNOfOneHostAndAFasterOneOfItReplacesItsSlowest() {
        Map<Id, Long> rtt = new HashMap<>();
        RoutingTable table = new RoutingTable(SELF, 3, id -> rtt.getOrDefault(id, -1L), 2, "10.0.0.1");
        // Ids in row 0, column 0: they differ from this node (8...) in the first digit.
        Id a = Id.fromHex("0100000000000000000000000000000000000000");
        Id b = Id.fromHex("0200000000000000000000000000000000000000");
        Id c = Id.fromHex("0300000000000000000000000000000000000000");
        Id d = Id.fromHex("0400000000000000000000000000000000000000");
        assertThat(table.add(at(a, "10.0.0.9", 1))).isTrue();
        assertThat(table.add(at(b, "10.0.0.9", 2))).isTrue();
        assertThat(table.wouldTake(at(c, "10.0.0.9", 3))).isFalse();
        assertThat(table.add(at(c, "10.0.0.9", 3))).as("a third of one host, unmeasured").isFalse();
        assertThat(table.wouldTake(at(c, "10.0.0.10", 3))).isTrue();

        rtt.put(a, 50L);
        rtt.put(b, 90L);
        rtt.put(c, 70L);
        assertThat(table.add(at(c, "10.0.0.9", 3))).as("measured faster than its host's slowest").isTrue();
        assertThat(table.slotFor(a)).extracting(Contact::id).containsExactlyInAnyOrder(a, c);

        assertThat(table.add(at(d, "10.0.0.10", 4))).as("another host takes the room left").isTrue();
        assertThat(table.slotFor(a)).hasSize(3);
        assertThat(fromHost(table.slotFor(a), "10.0.0.9")).isEqualTo(2);
    }

    @Test
    void aTableSlotOnThisNodesOwnHostIsNotBounded() {
        RoutingTable table = new RoutingTable(SELF, 3, id -> -1L, 1, "127.0.0.1");
        for (int i = 1; i <= 3; i++) {
            table.add(at(Id.fromHex("0" + i + "00000000000000000000000000000000000000"), "127.0.0.1", i));
        }
        assertThat(table.size()).isEqualTo(3);
    }

    @Test
    void oneHostHoldsNCandidatesOfTheWholeTableHoweverFastSoItIsTheFirstHopOfAtMostNSlots() {
        Map<Id, Long> rtt = new HashMap<>();
        RoutingTable table = new RoutingTable(SELF, 3, id -> rtt.getOrDefault(id, -1L), 2, "10.0.0.1");
        List<Contact> honest = new ArrayList<>();
        // One id of the attacker's host in each of the 15 slots of row 0 (every first digit but this node's 8), the
        // fastest of each slot, and one honest id in each, slower.
        for (int digit = 0; digit < 16; digit++) {
            if (digit == 8) {
                continue;
            }
            String hex = Integer.toHexString(digit);
            Id fast = Id.fromHex(hex + "100000000000000000000000000000000000000");
            Id slow = Id.fromHex(hex + "200000000000000000000000000000000000000");
            rtt.put(fast, 1L);
            rtt.put(slow, 100L);
            table.add(at(fast, "10.0.0.9", 100 + digit));
            Contact h = at(slow, "10.0.1." + digit, 4000);
            table.add(h);
            honest.add(h);
        }
        assertThat(fromHost(table.all(), "10.0.0.9")).as("the attacker's candidates in the whole table").isEqualTo(2);
        assertThat(table.all()).containsAll(honest);
        long firstHops = 0;
        for (Contact h : honest) {
            Contact best = table.best(table.slotFor(h.id()), c -> true);
            if (HostKeys.of(best.address().host()).equals("10.0.0.9")) {
                firstHops++;
            }
        }
        assertThat(firstHops).as("slots whose first hop is the attacker's").isEqualTo(2);
        assertThat(table.wouldTake(at(Id.fromHex("0300000000000000000000000000000000000000"), "10.0.0.9", 99)))
                .isFalse();
        Id moved = Id.fromHex("1200000000000000000000000000000000000000");
        assertThat(table.add(at(moved, "10.0.0.9", 98))).as("an honest id moving to the host at its bound")
                .isFalse();
    }

    /** The table counts hosts in buckets to spare itself a scan: through any mix of changes, it decides as a scan. */
    @Test
    void theWholeTableBoundHoldsThroughAnyMixOfAddsMovesReplacementsAndRemoves() {
        SplittableRandom random = new SplittableRandom(5);
        Map<Id, Long> rtt = new HashMap<>();
        RoutingTable table = new RoutingTable(SELF, 3, id -> rtt.getOrDefault(id, -1L), 2, "10.0.0.1");
        List<Id> ids = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            ids.add(Id.random(random));
        }
        for (int step = 0; step < 20_000; step++) {
            Id id = ids.get(random.nextInt(ids.size()));
            if (random.nextInt(4) == 0) {
                table.remove(id);
                continue;
            }
            if (random.nextBoolean()) {
                rtt.put(id, (long) random.nextInt(100));
            }
            // 24 hosts, this node's own among them (not bounded).
            Contact c = at(id, "10.0." + random.nextInt(3) + "." + random.nextInt(8), 4000 + random.nextInt(2));
            Contact probe = at(ids.get(random.nextInt(ids.size())), "10.0." + random.nextInt(3) + "."
                    + random.nextInt(8), 5000);
            List<Contact> slot = table.slotFor(probe.id());
            boolean room = slot.size() < 3 && slot.stream().noneMatch(s -> s.id().equals(probe.id()));
            String host = probe.address().host();
            assertThat(table.wouldTake(probe)).as("step %d: %s", step, probe)
                    .isEqualTo(room && (host.equals("10.0.0.1") || fromHost(table.all(), host) < 2));
            table.add(c);
            for (int h = 0; h < 24; h++) {
                String other = "10.0." + h / 8 + "." + h % 8;
                if (!other.equals("10.0.0.1")) {
                    assertThat(fromHost(table.all(), other)).as("step %d: %s", step, other).isLessThanOrEqualTo(2);
                }
            }
        }
    }
}
