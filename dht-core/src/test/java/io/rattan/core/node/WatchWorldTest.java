package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Watches in a virtual world: a watch hears the key's live values, READY, then every put acknowledged after READY
 * exactly once as a VALUE, removes and expiries; and goes on hearing every acknowledged put while the key's replicas
 * crash and new nodes join (the replicas' registrations move at the next renewal, and what a new replica holds is read
 * when it registers).
 */
class WatchWorldTest {

    private static final long SECOND = 1_000_000_000L;
    private static final Id KEY = Id.ofName("watched");
    private static final Bytes SECRET = Bytes.utf8("s3cret");

    private VirtualWorld world;
    private final List<WatchEvent> events = new ArrayList<>();

    @BeforeEach
    void world() {
        NodeConfig config = NodeConfig.builder().watch(new WatchLimits(6_000, 100, 1_000, 500)).build();
        world = new VirtualWorld(11, config, LatencyModel.constant(5_000_000L));
        world.addNodes(24);
        world.runFor(5 * SECOND);
    }

    private int gatewayFarFromKey() {
        List<Integer> byDistance = byDistance();
        return byDistance.get(byDistance.size() - 1);
    }

    private List<Integer> byDistance() {
        List<Integer> live = new ArrayList<>(world.liveIndexes());
        live.sort(Comparator.comparing((Integer i) -> world.contact(i).id().distanceTo(KEY)));
        return live;
    }

    private long watch(int gateway, ValueFilter filter) {
        long[] id = new long[1];
        world.scheduler().execute(() -> id[0] = world.node(gateway).watch(new ClientWatch(KEY, filter, 0, 0),
                events::add));
        assertThat(world.runUntil(() -> kinds().contains(WatchKind.READY), 20 * SECOND)).as("READY").isTrue();
        return id[0];
    }

    private boolean put(int via, String value, int ttlSeconds) {
        Bytes v = Bytes.utf8(value);
        Message reply = world.request(via, new ClientPut(KEY, v, ttlSeconds, SecretBinding.of(SECRET, KEY,
                v.sha256())));
        return reply instanceof PutReply p && p.status() == Status.OK;
    }

    private List<WatchKind> kinds() {
        return events.stream().map(WatchEvent::kind).toList();
    }

    private List<String> values() {
        return events.stream().filter(e -> e.kind() == WatchKind.VALUE)
                .map(e -> new String(e.value().value().toByteArray(), java.nio.charset.StandardCharsets.UTF_8))
                .toList();
    }

    @Test
    void aWatchHearsTheLiveValuesThenReadyThenEveryChangeOnce() {
        int gateway = gatewayFarFromKey();
        assertThat(put(3, "before 1", 600)).isTrue();
        assertThat(put(4, "before 2", 600)).isTrue();
        watch(gateway, ValueFilter.NONE);
        assertThat(kinds()).containsExactly(WatchKind.VALUE, WatchKind.VALUE, WatchKind.READY);
        assertThat(values()).containsExactlyInAnyOrder("before 1", "before 2");

        for (int i = 0; i < 5; i++) {
            assertThat(put(i + 5, "after " + i, 600)).isTrue();
        }
        assertThat(put(2, "short", 3)).isTrue();
        world.runFor(2 * SECOND);
        assertThat(values()).containsExactlyInAnyOrder("before 1", "before 2", "after 0", "after 1", "after 2",
                "after 3", "after 4", "short");

        Bytes removed = Bytes.utf8("after 2").sha256();
        assertThat(((RemoveReply) world.request(7, new ClientRemove(KEY, removed, SECRET, 600))).status())
                .isEqualTo(Status.OK);
        world.runFor(5 * SECOND);
        List<WatchEvent> gone = events.stream().filter(e -> e.kind() != WatchKind.VALUE
                && e.kind() != WatchKind.READY).toList();
        assertThat(gone).extracting(WatchEvent::kind).containsExactlyInAnyOrder(WatchKind.REMOVED,
                WatchKind.EXPIRED);
        assertThat(gone).filteredOn(e -> e.kind() == WatchKind.REMOVED).extracting(WatchEvent::valueHash)
                .containsExactly(removed);
        assertThat(gone).filteredOn(e -> e.kind() == WatchKind.EXPIRED).extracting(WatchEvent::valueHash)
                .containsExactly(Bytes.utf8("short").sha256());
        // Event numbers only grow: a client may resume from any of them.
        List<Long> seqs = events.stream().filter(e -> e.kind() != WatchKind.READY && e.seq() > 0)
                .map(WatchEvent::seq).toList();
        assertThat(seqs).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void everyPutAcknowledgedAfterReadyArrivesWhileReplicasCrashAndNodesJoin() {
        int gateway = gatewayFarFromKey();
        watch(gateway, ValueFilter.NONE);
        Set<String> acknowledged = new HashSet<>();
        int n = 0;
        for (int round = 0; round < 4; round++) {
            List<Integer> replicas = byDistance().subList(0, 4);
            int victim = replicas.get(round % 2 == 0 ? 0 : 1);
            if (victim != gateway) {
                world.kill(victim);
            }
            if (round % 2 == 1) {
                world.addNodes(2);
            }
            for (int i = 0; i < 6; i++) {
                String v = "v" + (n++);
                List<Integer> live = world.liveIndexes();
                if (put(live.get((n * 7) % live.size()), v, 600)) {
                    acknowledged.add(v);
                }
                world.runFor(SECOND);
            }
        }
        assertThat(acknowledged).hasSizeGreaterThan(12);
        // At most one renewal (a third of the lease) after the last put, everything acknowledged has arrived.
        world.runFor(4 * SECOND);
        assertThat(values()).containsAll(acknowledged).doesNotHaveDuplicates();
        assertThat(kinds()).doesNotContain(WatchKind.ENDED);
    }

    @Test
    void aClientThatResumesHearsExactlyWhatItMissedAndAWatchPastTheBoundIsRefused() {
        int gateway = gatewayFarFromKey();
        long id = watch(gateway, ValueFilter.NONE);
        assertThat(put(3, "one", 600)).isTrue();
        world.runFor(SECOND);
        WatchEvent last = events.get(events.size() - 1);
        world.scheduler().execute(() -> world.node(gateway).unwatch(io.rattan.core.msg.NamespaceDefinition.DEFAULT, id));
        world.runFor(SECOND);
        assertThat(put(4, "two", 600)).isTrue();
        assertThat(put(5, "three", 600)).isTrue();
        world.runFor(SECOND);
        assertThat(values()).containsExactly("one");

        List<WatchEvent> resumed = new ArrayList<>();
        world.scheduler().execute(() -> world.node(gateway).watch(new ClientWatch(KEY, ValueFilter.NONE,
                last.epoch(), last.seq()), resumed::add));
        world.runFor(SECOND);
        assertThat(resumed).extracting(WatchEvent::kind).containsExactly(WatchKind.VALUE, WatchKind.VALUE,
                WatchKind.READY);

        List<WatchEvent> refused = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            world.scheduler().execute(() -> world.node(gateway).watch(new ClientWatch(Id.ofName("k" + refused.size()),
                    ValueFilter.NONE, 0, 0), e -> {
                        if (e.kind() == WatchKind.ENDED) {
                            refused.add(e);
                        }
                    }));
        }
        world.runFor(SECOND);
        assertThat(refused).isNotEmpty().allMatch(e -> e.status() == Status.RATE_LIMITED);
    }
}
