package io.rattan.sim.experiment;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.core.client.GetRace;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualWorld;
import java.util.List;
import java.util.function.Consumer;

/**
 * One round of an {@link OpenDhtTable} run: the client on gateway[0]'s host runs every mode's get in {@code order},
 * one after another, each as a {@link GetRace} of copies through the round's gateways or straight to replicas.
 */
final class ClientRound {

    private final RoundSchedule rounds;
    private final VirtualWorld world;
    private final SimClients clients;
    private final OneHopClient oneHop;
    private final int[] gateways;
    private final Id key;
    private final Bytes expected;
    private final int[] order;
    private final int firstCause;
    /** Whether the round's own gateway was not slow when it started. */
    private final boolean healthy;
    private final GetLog.Round logged;

    ClientRound(RoundSchedule rounds, OneHopClient oneHop, int[] gateways, Id key, Bytes expected, int[] order,
                int firstCause, boolean healthy, GetLog.Round logged) {
        this.rounds = rounds;
        this.world = rounds.w.world();
        this.clients = rounds.w.clients();
        this.oneHop = oneHop;
        this.gateways = gateways;
        this.key = key;
        this.expected = expected;
        this.order = order;
        this.firstCause = firstCause;
        this.healthy = healthy;
        this.logged = logged;
    }

    /** Runs the get of the {@code i}-th mode in the round's order, or ends the round after the last. */
    void next(int i) {
        if (i == order.length) {
            world.scheduler().cause(0);
            rounds.tally.roundDone();
            return;
        }
        int mode = order[i];
        // Everything this get sets off, down to late replies, carries its cause.
        world.scheduler().cause(firstCause + mode);
        List<OpenDhtTable.Mode> modes = rounds.modes;
        GetOptions o = modes.get(mode).options();
        boolean direct = modes.get(mode).oneHop();
        // Each copy goes to its gateway alone; a one-hop client asks every answer for the key's holders.
        ClientGet get = new ClientGet(key, 0, Bytes.EMPTY, direct, o.oneCopy());
        List<Contact> targets = direct ? oneHop.targets(key, rounds.replicas, world.contact(gateways[0]))
                : List.of();
        HedgeThreshold threshold = rounds.thresholds[mode];
        // One-hop copies are hedged against what their replicas should take, a routed one end to end.
        long[] hedgeWaits = threshold == null ? new long[0] : direct
                ? oneHop.hedgeWaitsNanos(targets, threshold.thresholdNanos())
                : modes.get(mode).routedHedgeWaits(threshold.thresholdNanos());
        GetRace.start(world.scheduler(), world.scheduler(), o, threshold, hedgeWaits, OpenDhtTable::isOk,
                (copy, answer) -> sendCopy(direct, targets, get, copy, answer),
                result -> decided(i, mode, result));
    }

    private void sendCopy(boolean direct, List<Contact> targets, ClientGet get, int copy,
                          Consumer<Message> answer) {
        if (direct && copy < targets.size()) {
            rounds.direct.send(oneHop, targets, copy, get, answer);
        } else if (direct) {
            // More copies than known targets (an empty image): the next ones start at the round's other
            // gateways, as a routed race's do, and their answers teach the image.
            int via = gateways[Math.min(copy - targets.size() + 1, gateways.length - 1)];
            clients.send(gateways[0], via, get, m -> {
                oneHop.routedAnswer(world.contact(via), m);
                answer.accept(m);
            });
        } else {
            clients.send(gateways[0], gateways[copy], get, answer);
        }
    }

    private void decided(int i, int mode, GetRace.Result result) {
        rounds.tally.decided(logged, mode, result, expected, healthy, rounds.requestTimeoutNanos);
        // The next mode starts once this one is decided, as one client would run them.
        world.scheduler().execute(() -> next(i + 1));
    }
}
