package io.rattan.sim.experiment;

import io.rattan.core.client.GetRace;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.id.Id;
import io.rattan.core.msg.GetOptions;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.Ping;
import io.rattan.core.msg.Messages.Pong;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.util.Bytes;
import io.rattan.core.virtual.VirtualWorld;
import io.rattan.sim.net.HostAssignment;
import io.rattan.sim.net.LatencyMatrix;
import io.rattan.sim.net.SlowNodeModel;
import io.rattan.sim.net.WideAreaLatencyModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * The OpenDHT study's workload in the virtual world: unmodified nodes on a latency matrix with slow periods, values
 * put and kept alive, every get performed in every mode, modes in a fresh random order per round, one after another.
 * Each round has a client on a random node's host, whose gateway is that node; modes with more gateways also use
 * two other random nodes, the same for every mode of the round. Latency is measured at the client; a get succeeds
 * only with exactly the value put, and a failed get counts at the request timeout. The oracle is the RTT from the
 * client's host to the nearest replica that is not slow when the round starts. Every message a get causes is
 * charged to it ({@link CostMeter}).
 *
 * <p>With {@link Churn}, nodes join, leave and crash during the get phase ({@link ChurnDriver}); each round then
 * picks its nodes among those serving (alive, joined, not leaving) when it starts, and the oracle counts only live
 * replicas. Values are kept alive by the nodes' own repair alone.
 */
public final class OpenDhtTable {

    /**
     * A way of performing a get, as the table names it. A one-hop mode's client ({@link GetOptions#oneHop()}) sends
     * each copy straight to a replica its image knows (see {@link OneHopClient}) instead of through gateways.
     */
    public record Mode(String name, GetOptions options, int hedges) {
        /** With one hedge copy when hedged (a one-hop get's hedges follow {@link OneHopClient} instead). */
        public Mode(String name, GetOptions options) {
            this(name, options, options.hedge() ? 1 : 0);
        }

        public Mode {
            if (hedges < 0 || hedges > 0 != options.hedge()) {
                throw new IllegalArgumentException("a hedged mode has at least one hedge, another none: " + name);
            }
        }

        boolean oneHop() {
            return options.oneHop();
        }

        /** Copies a routed get of this mode may send, hence the gateways its rounds need. */
        int copiesMax() {
            return options.oneHop() ? options.maxCopies() : options.gateways() + hedges;
        }
    }

    /** One row of the result; cost columns are null for the oracle. */
    public record Row(String mode, long gets, double p50Ms, double p90Ms, double p99Ms, double p999Ms,
                      Double msgsPerGet, Double bytesPerGet, long failed, long hedges) {
    }

    /** What to run; {@code churn} applies during the get phase. */
    public record Params(int nodes, int gets, int values, long getPhaseNanos, long seed, Churn churn) {
        /** Without churn. */
        public Params(int nodes, int gets, int values, long getPhaseNanos, long seed) {
            this(nodes, gets, values, getPhaseNanos, seed, Churn.NONE);
        }
    }

    /**
     * Everything a run measured. {@code latencies} are in microseconds, one per row, for plots;
     * {@code messagesByType} counts the messages sent during the get phase; maintenance is per live node-second.
     * {@code healthyGateway} is each mode's p99 over only the rounds whose own node (the client's gateway) was not
     * in a slow period when the round started, and how many rounds those were: what routing can change, where the
     * full p99 also holds the gets that queue behind a slow gateway in every mode alike.
     */
    public record Result(List<Row> rows, List<Histogram> latencies, double maintenanceMsgsPerNodeSecond,
                         double maintenanceBytesPerNodeSecond, long events, Map<MessageType, Long> messagesByType,
                         Churn.Counts churn, List<Double> healthyGatewayP99Ms, long healthyGatewayRounds) {
    }

    private static final long SECOND = 1_000_000_000L;

    private final Params params;
    private final LatencyMatrix matrix;
    private final List<SlowPeriod> periods;
    private final SlowNodeModel model;
    private final NodeConfig config;
    private final List<Mode> modes;
    private final Consumer<String> log;
    private final Progress progress;

    /** Progress of the get phase, for a progress bar. */
    @FunctionalInterface
    public interface Progress {
        void update(int roundsDone, int rounds, long virtualNanos, long events);
    }

    public OpenDhtTable(Params params, LatencyMatrix matrix, List<SlowPeriod> periods, SlowNodeModel model,
                        NodeConfig config, List<Mode> modes, Consumer<String> log, Progress progress) {
        this.params = params;
        this.matrix = matrix;
        this.periods = periods;
        this.model = model;
        this.config = config;
        this.modes = List.copyOf(modes);
        this.log = log;
        this.progress = progress;
    }

    /**
     * How many nodes a run of {@code params} starts, the nodes its churn adds included: the world's hosts and slow
     * periods must cover that many. Node i of a run is the i-th started, so its host and slow periods are the same
     * whatever the churn.
     */
    public static int nodeSlots(Params params) {
        return params.nodes() + churnPlan(params).joins();
    }

    private static ChurnPlan churnPlan(Params params) {
        return ChurnPlan.draw(params.churn(), params.getPhaseNanos(), params.seed());
    }

    /** The node configuration of the experiment: the real node's, with 8 replicas and Bamboo's 5 s initial RTO. */
    public static NodeConfig experimentConfig() {
        return NodeConfig.defaults().withReplicas(8, 2).withTimeouts(10_000, 5_000, 20, 5_000);
    }

    /** The table's modes, in its order. */
    public static List<Mode> standardModes() {
        GetOptions da = GetOptions.of(RoutingMode.DELAY_AWARE);
        GetOptions it = GetOptions.of(RoutingMode.ITERATIVE).withParallelism(3);
        return List.of(
                new Mode("greedy", GetOptions.of(RoutingMode.GREEDY)),
                new Mode("delay-aware", da),
                new Mode("delay-aware-2gw", da.withGateways(2)),
                new Mode("delay-aware-3gw", da.withGateways(3)),
                new Mode("iterative-3", it),
                new Mode("iterative-3-2gw", it.withGateways(2)),
                new Mode("hedged", da.withHedge(true)),
                new Mode("one-hop-hedged", da.withHedge(true).withOneHop(true)));
    }

    /**
     * Modes that are not in the table but can be asked for by name ({@code --modes}), for experiments that the
     * default run should not pay for: {@code hedged-escalating} is {@code hedged} with a second hedge copy, through a
     * third gateway, when the first two are both still unanswered one more threshold later.
     */
    public static List<Mode> extraModes() {
        return List.of(new Mode("hedged-escalating", GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), 2));
    }

    /** Runs the workload; returns one row per mode and the oracle row last. */
    public Result run() {
        SplittableRandom random = new SplittableRandom(params.seed());
        ChurnPlan plan = churnPlan(params);
        TableWorld w = setUp(plan);
        Stored stored = putValues(w.world(), random);
        w.world().runFor(30 * SECOND);
        Map<Integer, OneHopClient> oneHop = new HashMap<>();
        if (modes.stream().anyMatch(Mode::oneHop)) {
            warmUp(w, oneHop, stored.keys(), random);
        }
        Rounds rounds = new Rounds(w, stored, oneHop);
        ChurnDriver churner = playRounds(rounds, plan, random);
        return report(w, rounds.tally, churner);
    }

    /** One run's world, and the meter and client processes its gets go through. */
    private record TableWorld(VirtualWorld world, WideAreaLatencyModel net, CostMeter meter, SimClients clients) {
    }

    /** The values the put phase stored, {@code values.get(i)} under {@code keys.get(i)}. */
    private record Stored(List<Id> keys, List<Bytes> values) {
    }

    /** The world with its first nodes joined, metered from its first message on. */
    private TableWorld setUp(ChurnPlan plan) {
        HostAssignment hosts = HostAssignment.random(params.nodes() + plan.joins(), matrix.hosts(), params.seed());
        WideAreaLatencyModel net = new WideAreaLatencyModel(matrix, hosts, periods, model,
                params.seed() ^ 0x9E3779B97F4A7C15L);
        VirtualWorld world = new VirtualWorld(params.seed(), config, net);
        net.attach(world.scheduler());
        CostMeter meter = new CostMeter(world.scheduler(), params.gets() * modes.size());
        world.network().observer(meter);
        world.addNodes(params.nodes());
        log.accept(String.format("%d nodes joined at %.0f s of virtual time", params.nodes(),
                world.scheduler().nanoTime() / 1e9));
        return new TableWorld(world, net, meter, new SimClients(world, requestTimeoutNanos() + SECOND));
    }

    private long requestTimeoutNanos() {
        return config.requestTimeoutMillis() * 1_000_000L;
    }

    /** Puts the values one after another, each through random gateways until one stores it. */
    private Stored putValues(VirtualWorld world, SplittableRandom random) {
        List<Id> keys = new ArrayList<>();
        List<Bytes> values = new ArrayList<>();
        int unplaced = 0;
        for (int i = 0; keys.size() < params.values(); i++) {
            Id key = Id.random(random);
            Bytes value = Bytes.utf8("value-" + i + "-" + random.nextLong());
            // A client retries a put that a slow root or replica let time out, through another gateway.
            Message put = null;
            for (int attempt = 0; attempt < 5 && !(put instanceof PutReply p && p.status() == Status.OK); attempt++) {
                put = world.request(random.nextInt(params.nodes()), new ClientPut(key, value, 86_400, Bytes.EMPTY));
            }
            if (put instanceof PutReply p && p.status() == Status.OK) {
                keys.add(key);
                values.add(value);
            } else if (++unplaced > params.values()) {
                throw new IllegalStateException("more puts failed 5 times than values were asked for: " + put);
            }
        }
        if (unplaced > 0) {
            // A key whose root sits in a long slow period cannot be stored; it is replaced by another key.
            log.accept(unplaced + " keys could not be put in 5 attempts and were replaced by others");
        }
        return new Stored(keys, values);
    }

    /**
     * The measured phase: schedules every round, starts the churn, and runs the world until every round is decided
     * and the churn plan has played out.
     */
    private ChurnDriver playRounds(Rounds rounds, ChurnPlan plan, SplittableRandom random) {
        VirtualWorld world = rounds.w.world();
        long start = world.scheduler().nanoTime();
        rounds.w.meter().countMaintenance(true);
        // Churn draws from streams of its own, and a round's nodes are drawn from the workload's stream even when
        // churn replaces them: times, keys and mode orders are the same with and without churn, and a run without
        // churn is the run from before churn existed.
        SplittableRandom churnRandom = new SplittableRandom(params.seed() ^ 0xBB67AE8584CAA73BL);
        SplittableRandom roundNodes = churnRandom.split();
        ChurnDriver churner = new ChurnDriver(world, plan, ChurnDriver.minServing(config), churnRandom.split(),
                rounds.w.clients()::addGateway);
        rounds.scheduleAll(start, random, roundNodes);
        churner.start();
        int total = params.gets();
        while (rounds.tally.roundsDone() < total || !churner.finished()) {
            world.runFor(10 * SECOND);
            progress.update(rounds.tally.roundsDone(), total, world.scheduler().nanoTime(),
                    world.scheduler().executed());
            if (world.scheduler().nanoTime() - start > params.getPhaseNanos() + 3600 * SECOND) {
                throw new IllegalStateException("gets did not finish within an hour after the get phase");
            }
        }
        rounds.w.meter().countMaintenance(false);
        return churner;
    }

    /** Each mode's row, with what its gets cost, then the oracle's; maintenance per live node-second. */
    private Result report(TableWorld w, RoundTally tally, ChurnDriver churner) {
        int m = modes.size();
        CostMeter meter = w.meter();
        double nodeSeconds = (double) churner.aliveNodeNanos() / SECOND;
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < m; i++) {
            long msgs = 0;
            long bytes = 0;
            for (int round = 0; round < params.gets(); round++) {
                msgs += meter.messages(round * m + i + 1);
                bytes += meter.bytes(round * m + i + 1);
            }
            rows.add(row(modes.get(i).name(), tally.latency(i), (double) msgs / params.gets(),
                    (double) bytes / params.gets(), tally.failed(i), tally.hedges(i)));
        }
        rows.add(row("oracle", tally.oracle(), null, null, 0, 0));
        return new Result(rows, tally.histograms(), meter.maintenanceMessages() / nodeSeconds,
                meter.maintenanceBytes() / nodeSeconds, w.world().scheduler().executed(), meter.sentByType(),
                churner.counts(), tally.healthyGatewayP99Ms(), tally.healthyRounds());
    }

    /** The rounds of the measured phase and what they share. */
    private final class Rounds {
        final TableWorld w;
        final Stored stored;
        /** Each client host's one-hop client, made when a round first puts a client there. */
        final Map<Integer, OneHopClient> oneHop;
        final RoundTally tally = new RoundTally(modes.size());
        final HedgeThreshold[] thresholds = new HedgeThreshold[modes.size()];

        Rounds(TableWorld w, Stored stored, Map<Integer, OneHopClient> oneHop) {
            this.w = w;
            this.stored = stored;
            this.oneHop = oneHop;
            for (int i = 0; i < modes.size(); i++) {
                if (modes.get(i).options().hedge()) {
                    // One estimator per mode, shared by the run's clients: each client here makes only a few gets,
                    // so the shared one stands for a long-lived client's own.
                    thresholds[i] = HedgeThreshold.defaults();
                }
            }
        }

        /** Draws every round's time, nodes, key and mode order from {@code random} now, and schedules the round. */
        void scheduleAll(long start, SplittableRandom random, SplittableRandom roundNodes) {
            VirtualWorld world = w.world();
            int m = modes.size();
            double meanGap = (double) params.getPhaseNanos() / params.gets();
            long at = start;
            int gatewaysMax = modes.stream().mapToInt(Mode::copiesMax).max().orElse(1);
            boolean churn = !params.churn().isOff();
            for (int round = 0; round < params.gets(); round++) {
                at += (long) (-Math.log(1 - random.nextDouble()) * meanGap);
                int[] drawn = distinctNodes(random, Math.min(gatewaysMax, params.nodes()));
                int k = random.nextInt(stored.keys().size());
                int[] order = shuffledModes(random, m);
                long roundAt = at;
                int firstCause = round * m + 1;
                world.scheduler().schedule(roundAt - world.scheduler().nanoTime(), () -> startRound(
                        churn ? servingNodes(world, roundNodes, drawn.length) : drawn, k, order, firstCause, roundAt));
            }
        }

        /** Measures the round's oracle bound, then runs its first mode's get. */
        private void startRound(int[] gateways, int k, int[] order, int firstCause, long atNanos) {
            Id key = stored.keys().get(k);
            long oracleMicros = Math.max(1, (long) (oracleMillis(w.world(), w.net(), gateways[0], key, atNanos)
                    * 1000));
            boolean healthy = !w.net().isSlow(gateways[0], atNanos);
            tally.roundStarted(oracleMicros, healthy);
            new Round(this, oneHop.computeIfAbsent(gateways[0], OneHopClient::new), gateways, key,
                    stored.values().get(k), order, firstCause, healthy).next(0);
        }
    }

    /** One round: the client on gateway[0]'s host runs every mode's get in {@code order}, one after another. */
    private final class Round {
        final Rounds rounds;
        final VirtualWorld world;
        final SimClients clients;
        final OneHopClient oneHop;
        final int[] gateways;
        final Id key;
        final Bytes expected;
        final int[] order;
        final int firstCause;
        /** Whether the round's own gateway was not slow when it started. */
        final boolean healthy;

        Round(Rounds rounds, OneHopClient oneHop, int[] gateways, Id key, Bytes expected, int[] order,
              int firstCause, boolean healthy) {
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
        }

        void next(int i) {
            if (i == order.length) {
                world.scheduler().cause(0);
                rounds.tally.roundDone();
                return;
            }
            int mode = order[i];
            // Everything this get sets off, down to late replies, carries its cause.
            world.scheduler().cause(firstCause + mode);
            GetOptions o = modes.get(mode).options();
            boolean direct = modes.get(mode).oneHop();
            // Each copy goes to its gateway alone; a one-hop client asks every answer for the key's holders.
            ClientGet get = new ClientGet(key, 0, Bytes.EMPTY, direct, o.oneCopy());
            List<Contact> targets = direct ? oneHop.targets(key, config.replicas(), world.contact(gateways[0]))
                    : List.of();
            HedgeThreshold threshold = rounds.thresholds[mode];
            // One-hop copies are hedged against what their replicas should take, a routed one end to end.
            long[] hedgeWaits = threshold == null ? new long[0] : direct
                    ? oneHop.hedgeWaitsNanos(targets, threshold.thresholdNanos())
                    : routedHedgeWaits(threshold.thresholdNanos(), modes.get(mode).hedges());
            GetRace.start(world.scheduler(), world.scheduler(), o, threshold, hedgeWaits, OpenDhtTable::isOk,
                    (copy, answer) -> sendCopy(direct, targets, get, copy, answer),
                    result -> decided(i, mode, result));
        }

        private void sendCopy(boolean direct, List<Contact> targets, ClientGet get, int copy,
                              Consumer<Message> answer) {
            if (direct && copy < targets.size()) {
                sendDirect(rounds.w, oneHop, targets, copy, get, answer);
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
            boolean ok = result.reply() instanceof GetReply g && g.status() == Status.OK
                    && g.values().size() == 1 && g.values().get(0).value().equals(expected);
            long timeoutMicros = requestTimeoutNanos() / 1000;
            long micros = ok ? Math.max(1, result.latencyNanos() / 1000)
                    : Math.max(result.latencyNanos() / 1000, timeoutMicros);
            rounds.tally.record(mode, micros, ok, healthy, result.hedged());
            // The next mode starts once this one is decided, as one client would run them.
            world.scheduler().execute(() -> next(i + 1));
        }
    }

    /** Each hedge copy of a routed get goes one threshold after the copy before it. */
    private static long[] routedHedgeWaits(long thresholdNanos, int hedges) {
        long[] waits = new long[hedges];
        Arrays.fill(waits, thresholdNanos);
        return waits;
    }

    /**
     * A one-hop copy: straight to {@code targets[from]}'s client port; the answer updates the client's image. A
     * target that fails, or does not answer within {@link #DIRECT_ATTEMPT_NANOS} (it left, crashed or is very slow),
     * passes the copy on to the next target; the client's own node, last unless it is a replica, routes it as any
     * gateway would, has the whole client timeout and ends the chain.
     */
    private void sendDirect(TableWorld w, OneHopClient client, List<Contact> targets, int from, ClientGet get,
                            Consumer<Message> answer) {
        VirtualWorld world = w.world();
        SimClients clients = w.clients();
        Contact target = targets.get(from);
        // The client's own node ends the chain wherever it stands (first, when it is a replica itself).
        boolean last = from == targets.size() - 1 || indexOf(world, target) == client.host();
        long sent = world.scheduler().nanoTime();
        long giveUp = last ? clients.timeoutNanos() : DIRECT_ATTEMPT_NANOS;
        clients.send(client.host(), indexOf(world, target), get, giveUp, m -> {
            client.answered(target, m, world.scheduler().nanoTime() - sent);
            // The nodes an answer names are probed once each, so the next get for their keys can go to the nearest
            // replica; a probe carries this get's cause, so its cost is this get's.
            for (Contact c : client.toProbe(m)) {
                long probeSent = world.scheduler().nanoTime();
                clients.send(client.host(), indexOf(world, c), new Ping(), pong -> {
                    if (pong instanceof Pong) {
                        client.probed(c, world.scheduler().nanoTime() - probeSent);
                    }
                });
            }
            if (!isOk(m) && !last) {
                sendDirect(w, client, targets, from + 1, get, answer);
                return;
            }
            answer.accept(m);
        });
    }

    private Map<Id, Integer> indexById;

    private int indexOf(VirtualWorld world, Contact c) {
        if (indexById == null) {
            indexById = new HashMap<>();
        }
        // Nodes that joined since the last look are added as they are first asked for.
        for (int i = indexById.size(); i < world.size(); i++) {
            indexById.put(world.contact(i).id(), i);
        }
        return indexById.get(c.id());
    }

    /** A one-hop client's image has converged once this many gets in a row taught it no new node. */
    private static final int WARM_UP_STILL_GETS = 20;
    /** The most warm-up gets a client makes, converged or not. */
    private static final int WARM_UP_MAX_GETS = 500;
    /** How long a one-hop client waits for one target before it passes the copy on to the next. */
    private static final long DIRECT_ATTEMPT_NANOS = SECOND;

    /**
     * Before the measured gets, every node's host has a one-hop client make one-hop gets of random stored keys, one
     * after another, until its image has converged: {@value #WARM_UP_STILL_GETS} good gets in a row taught it no new
     * node (a failed get does not count; at most {@value #WARM_UP_MAX_GETS} gets). Its image is then what a
     * long-running client's would be. A client that has asked for only a few keys knows only a few replica sets and
     * sends half its gets to a node that is no replica of the key (docs/experiments.md). Warm-up gets are not
     * measured and not charged to any mode.
     */
    private void warmUp(TableWorld w, Map<Integer, OneHopClient> oneHop, List<Id> keys, SplittableRandom random) {
        VirtualWorld world = w.world();
        int[] left = {params.nodes()};
        long[] gets = {0};
        for (int h = 0; h < params.nodes(); h++) {
            OneHopClient client = oneHop.computeIfAbsent(h, OneHopClient::new);
            long offset = (long) (random.nextDouble() * 60 * SECOND);
            long seed = random.nextLong();
            world.scheduler().schedule(offset, () -> warmUpGet(w, client, keys, new SplittableRandom(seed), 0, 0,
                    gets, left));
        }
        if (!world.runUntil(() -> left[0] == 0, 3 * 3600 * SECOND)) {
            throw new IllegalStateException("one-hop warm-up did not finish within three hours");
        }
        log.accept(String.format("one-hop clients warmed up until their images converged: %.0f gets each on "
                        + "average; images hold %.0f nodes on average", (double) gets[0] / params.nodes(),
                oneHop.values().stream().mapToInt(c -> c.image().size()).average().orElse(0)));
    }

    private void warmUpGet(TableWorld w, OneHopClient client, List<Id> keys, SplittableRandom random, int made,
                           int still, long[] gets, int[] left) {
        if (still == WARM_UP_STILL_GETS || made == WARM_UP_MAX_GETS) {
            left[0]--;
            return;
        }
        gets[0]++;
        Id key = keys.get(random.nextInt(keys.size()));
        List<Contact> targets = client.targets(key, config.replicas(), w.world().contact(client.host()));
        int known = client.image().size();
        sendDirect(w, client, targets, 0, ClientGet.of(key, GetOptions.of(RoutingMode.DELAY_AWARE)).askingHolders(),
                m -> w.world().scheduler().execute(() -> warmUpGet(w, client, keys, random, made + 1,
                        !isOk(m) ? still : client.image().size() > known ? 0 : still + 1, gets, left)));
    }

    private static boolean isOk(Message m) {
        return m instanceof GetReply g && g.status() == Status.OK;
    }

    private int[] distinctNodes(SplittableRandom random, int n) {
        int[] picked = new int[n];
        for (int i = 0; i < n; i++) {
            boolean fresh;
            do {
                picked[i] = random.nextInt(params.nodes());
                fresh = true;
                for (int j = 0; j < i; j++) {
                    fresh &= picked[j] != picked[i];
                }
            } while (!fresh);
        }
        return picked;
    }

    /** {@code n} distinct random nodes among those serving now; churn keeps far more than a round needs. */
    private static int[] servingNodes(VirtualWorld world, SplittableRandom random, int n) {
        List<Integer> serving = world.servingIndexes();
        if (serving.size() < n) {
            throw new IllegalStateException("a round needs " + n + " serving nodes, only " + serving.size() + " serve");
        }
        int[] picked = new int[n];
        for (int i = 0; i < n; i++) {
            picked[i] = serving.remove(random.nextInt(serving.size()));
        }
        return picked;
    }

    private static int[] shuffledModes(SplittableRandom random, int m) {
        int[] order = new int[m];
        for (int i = 0; i < m; i++) {
            order[i] = i;
        }
        for (int i = m - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    /**
     * RTT from the client's host to the nearest replica not slow at {@code atNanos}; the lower bound of a get. The
     * replicas are the key's closest live, joined nodes at that moment: under churn, where the values should be.
     */
    private double oracleMillis(VirtualWorld world, WideAreaLatencyModel net, int gateway, Id key, long atNanos) {
        List<Integer> live = world.liveIndexes();
        live.removeIf(i -> !world.node(i).isJoined());
        live.sort(Comparator.comparing((Integer i) -> world.contact(i).id().distanceTo(key)));
        double best = Double.MAX_VALUE;
        for (int r : live.subList(0, Math.min(config.replicas(), live.size()))) {
            if (!net.isSlow(r, atNanos)) {
                best = Math.min(best, r == gateway ? 0 : net.rttMillis(gateway, r));
            }
        }
        return best == Double.MAX_VALUE ? config.requestTimeoutMillis() : best;
    }

    private static Row row(String mode, Histogram h, Double msgs, Double bytes, long failed, long hedges) {
        return new Row(mode, h.getTotalCount(), h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(90) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                h.getValueAtPercentile(99.9) / 1000.0, msgs, bytes, failed, hedges);
    }

    /** The reference (Rhea et al., WORLDS 2005): p50 ms, p99 ms, msgs/get, bytes/get. */
    public static Map<String, double[]> reference() {
        Map<String, double[]> ref = new LinkedHashMap<>();
        ref.put("greedy", new double[] {150, 4400, 5.5, 1800});
        ref.put("delay-aware", new double[] {100, 1800, 6.0, 2000});
        ref.put("delay-aware-2gw", new double[] {70, 610, 12, 4000});
        ref.put("delay-aware-3gw", new double[] {57, 440, 17, 5300});
        ref.put("iterative-3", new double[] {120, 790, 15, 3800});
        ref.put("iterative-3-2gw", new double[] {76, 360, 27, 6700});
        return ref;
    }
}
