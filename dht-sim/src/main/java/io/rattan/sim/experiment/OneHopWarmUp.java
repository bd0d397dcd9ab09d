package io.rattan.sim.experiment;

import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualWorld;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Before the measured gets, every node's host has a one-hop client make one-hop gets of random stored keys, one
 * after another, until its image has converged: {@value #WARM_UP_STILL_GETS} good gets in a row taught it no new
 * node (a failed get does not count; at most {@value #WARM_UP_MAX_GETS} gets). Its image is then what a
 * long-running client's would be. A client that has asked for only a few keys knows only a few replica sets and
 * sends half its gets to a node that is no replica of the key (docs/experiments.md). Warm-up gets are not
 * measured and not charged to any mode.
 */
final class OneHopWarmUp {

    private static final long SECOND = 1_000_000_000L;
    private static final int WARM_UP_STILL_GETS = OneHopClient.WARM_UP_STILL_GETS;
    private static final int WARM_UP_MAX_GETS = OneHopClient.WARM_UP_MAX_GETS;

    private final TableWorld w;
    private final DirectCopies direct;
    private final int replicas;

    OneHopWarmUp(TableWorld w, DirectCopies direct, int replicas) {
        this.w = w;
        this.direct = direct;
        this.replicas = replicas;
    }

    /** Warms up a client on each of the first {@code nodes} hosts, all at once, and runs the world until done. */
    void run(int nodes, Map<Integer, OneHopClient> oneHop, List<Id> keys, SplittableRandom random,
             Consumer<String> log) {
        VirtualWorld world = w.world();
        int[] left = {nodes};
        long[] gets = {0};
        List<TableDraws.WarmUpStart> starts = TableDraws.warmUpStarts(random, nodes);
        for (int h = 0; h < nodes; h++) {
            OneHopClient client = oneHop.computeIfAbsent(h, OneHopClient::new);
            TableDraws.WarmUpStart start = starts.get(h);
            world.scheduler().schedule(start.offsetNanos(), () -> warmUpGet(client, keys,
                    new SplittableRandom(start.seed()), 0, 0, gets, left));
        }
        if (!world.runUntil(() -> left[0] == 0, 3 * 3600 * SECOND)) {
            throw new IllegalStateException("one-hop warm-up did not finish within three hours");
        }
        log.accept(String.format("one-hop clients warmed up until their images converged: %.0f gets each on "
                        + "average; images hold %.0f nodes on average", (double) gets[0] / nodes,
                oneHop.values().stream().mapToInt(c -> c.image().size()).average().orElse(0)));
    }

    private void warmUpGet(OneHopClient client, List<Id> keys, SplittableRandom random, int made, int still,
                           long[] gets, int[] left) {
        if (still == WARM_UP_STILL_GETS || made == WARM_UP_MAX_GETS) {
            left[0]--;
            return;
        }
        gets[0]++;
        Id key = keys.get(random.nextInt(keys.size()));
        List<Contact> targets = client.targets(key, replicas, w.world().contact(client.host()));
        int known = client.image().size();
        direct.send(client, targets, 0, ClientGet.of(key, GetOptions.of(RoutingMode.DELAY_AWARE)).askingHolders(),
                m -> w.world().scheduler().execute(() -> warmUpGet(client, keys, random, made + 1,
                        !OpenDhtTable.isOk(m) ? still : client.image().size() > known ? 0 : still + 1, gets, left)));
    }
}
