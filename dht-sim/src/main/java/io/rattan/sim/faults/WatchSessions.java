package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.node.Node;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Rule 8 (with {@code --watches}): clients that watch some of the workload's keys, each through a random gateway,
 * and the judgement at the end of the run. A watch whose gateway crashed or restarted (or that ended) is replaced by
 * a new one through another gateway, as a client fails over; what the rule holds for is each watch that lived to the
 * end: every put of its key acknowledged after its READY, not removed and still live at the end, reached it as a
 * VALUE. Single-threaded, on the world's thread.
 */
final class WatchSessions {

    private static final long SECOND = 1_000_000_000L;
    static final int WATCHED_KEYS = 6;
    private static final long CHECK_EVERY_NANOS = 5 * SECOND;

    private static final class Session {
        final Id key;
        final int gateway;
        final Node node;
        final long startNanos;
        long readyNanos = -1;
        boolean ended;
        final Set<Bytes> values = new HashSet<>();

        Session(Id key, int gateway, Node node, long startNanos) {
            this.key = key;
            this.gateway = gateway;
            this.node = node;
            this.startNanos = startNanos;
        }
    }

    private final VirtualWorld world;
    private final SplittableRandom random;
    private final List<Session> current = new ArrayList<>();
    private long replaced;

    WatchSessions(VirtualWorld world, SplittableRandom random) {
        this.world = world;
        this.random = random;
    }

    /** Starts one watch on each of {@code keys}, and the checks that replace a watch whose gateway went away. */
    void start(List<Id> keys) {
        for (Id key : keys) {
            current.add(open(key));
        }
        world.scheduler().schedule(CHECK_EVERY_NANOS, this::replaceLost);
    }

    private Session open(Id key) {
        int gateway = Workload.gateway(world, random);
        Session s = new Session(key, gateway, gateway < 0 ? null : world.node(gateway),
                world.scheduler().nanoTime());
        if (s.node == null) {
            s.ended = true;
            return s;
        }
        world.scheduler().execute(() -> s.node.watch(new ClientWatch(key, ValueFilter.NONE, 0, 0), e -> heard(s, e)));
        return s;
    }

    private void heard(Session s, WatchEvent e) {
        if (e.kind() == WatchKind.READY && s.readyNanos < 0) {
            s.readyNanos = world.scheduler().nanoTime();
        } else if (e.kind() == WatchKind.VALUE) {
            s.values.add(e.value().value());
        } else if (e.kind() == WatchKind.ENDED) {
            s.ended = true;
        }
    }

    private boolean lost(Session s) {
        return s.ended || !world.isAlive(s.gateway) || world.node(s.gateway) != s.node;
    }

    private void replaceLost() {
        for (int i = 0; i < current.size(); i++) {
            if (lost(current.get(i))) {
                current.set(i, open(current.get(i).key));
                replaced++;
            }
        }
        world.scheduler().schedule(CHECK_EVERY_NANOS, this::replaceLost);
    }

    /**
     * Judges every watch that lived to {@code endNanos}: each put of its key acknowledged after its READY, never
     * removed, and live at the end must have reached it. Returns how many watches were judged.
     */
    int judge(Checker checker, long endNanos) {
        int judged = 0;
        for (Session s : current) {
            if (lost(s) || s.readyNanos < 0) {
                continue;
            }
            judged++;
            for (PutRecord p : checker.puts(s.key)) {
                boolean owed = p.acked() && p.ackNanos > s.readyNanos && p.removeStartNanos == Long.MAX_VALUE
                        && !p.lostToDiskFaults && p.earliestExpiryNanos() > endNanos;
                if (owed && !s.values.contains(p.value)) {
                    checker.tally().violation(Rule.WATCH_MISSED, p.name() + ", acknowledged "
                            + (p.ackNanos - s.readyNanos) / 1_000_000 + " ms after READY of a watch through node "
                            + s.gateway + " (started " + s.startNanos / SECOND + " s), never reached it");
                }
            }
        }
        return judged;
    }

    /** Watches replaced because their gateway went away. */
    long replaced() {
        return replaced;
    }
}
