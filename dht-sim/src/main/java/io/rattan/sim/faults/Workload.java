package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.env.Cancellable;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.node.Node;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Clients that put, get and remove through random serving gateways while faults happen, one operation every 200 ms
 * of virtual time on average, over a pool of keys that each hold several values. Each put's value is unique, so a
 * value names its put. Some puts live 10–40 s; each of those is read twice just after its true expiry + S, which is
 * where a value kept too long shows. 30% of the gets page through the key, 2–8 values a page. Every operation goes
 * through {@link Checker}. A client hands its request to the
 * gateway node's {@code handleClient} directly (no client network) and gives up after twice the request timeout.
 */
final class Workload {

    private static final long SECOND = 1_000_000_000L;
    private static final int KEYS = 30;
    private static final long OP_GAP_MAX_NANOS = 400_000_000L;
    private static final int LONG_TTL_SECONDS = 3600;
    /** Gets that page, and their page sizes: a key holds some tens of values, live and removed. */
    private static final double PAGED_SHARE = 0.3;
    private static final int PAGE_MIN = 2;
    private static final int PAGE_MAX = 8;
    /** The final read's page: smaller than a key's values, so that it pages too. */
    static final int FINAL_PAGE_VALUES = 8;

    private final VirtualWorld world;
    private final Checker checker;
    private final SplittableRandom random;
    private final long seed;
    /** The planted raw-secrets: bind and remove with the secret itself, as clients did before remove proofs. */
    private final boolean rawSecrets;
    private final List<Id> keys = new ArrayList<>();
    private final long clientTimeoutNanos;
    private long stopNanos;
    private long ops;
    private long gatewayExceptions;

    Workload(VirtualWorld world, Checker checker, SplittableRandom random, long seed, boolean rawSecrets) {
        this.world = world;
        this.checker = checker;
        this.random = random;
        this.seed = seed;
        this.rawSecrets = rawSecrets;
        this.clientTimeoutNanos = 2 * world.config().requestTimeoutMillis() * 1_000_000L + 2 * SECOND;
        for (int i = 0; i < KEYS; i++) {
            keys.add(Id.random(random));
        }
    }

    /** Issues operations from now until {@code stopAtNanos} (absolute virtual time). */
    void start(long stopAtNanos) {
        this.stopNanos = stopAtNanos;
        world.scheduler().schedule(random.nextLong(OP_GAP_MAX_NANOS), this::nextOp);
    }

    private long now() {
        return world.scheduler().nanoTime();
    }

    private void nextOp() {
        if (now() >= stopNanos) {
            return;
        }
        double dice = random.nextDouble();
        Id key = keys.get(random.nextInt(keys.size()));
        if (dice < 0.45) {
            put(key);
        } else if (dice < 0.85) {
            get(key);
        } else {
            remove(key);
        }
        world.scheduler().schedule(random.nextLong(OP_GAP_MAX_NANOS), this::nextOp);
    }

    private void put(Id key) {
        Bytes value = Bytes.utf8("s" + seed + "-op" + (ops++) + "-" + Long.toHexString(random.nextLong()));
        byte[] secretBytes = new byte[16];
        random.nextBytes(secretBytes);
        Bytes secret = Bytes.of(secretBytes);
        boolean shortLived = random.nextDouble() < 0.3;
        int ttl = shortLived ? 10 + random.nextInt(31) : LONG_TTL_SECONDS;
        int gateway = gateway();
        Bytes sent = rawSecrets ? secret : SecretBinding.proof(secret, key, value.sha256());
        PutRecord p = checker.putStarted(key, value, secret, sent, ttl, gateway);
        send(new ClientPut(key, value, ttl, SecretBinding.of(sent, key, value.sha256())), gateway, reply -> {
            checker.putDone(p, reply);
            if (shortLived && p.acked()) {
                long probeAt = p.ackNanos + ttl * SECOND + Checker.S_NANOS + 200_000_000L;
                for (int i = 0; i < 2; i++) {
                    world.scheduler().schedule(probeAt - now() + i * 50_000_000L, () -> get(key));
                }
            }
        });
    }

    void get(Id key) {
        ops++;
        int gateway = gateway();
        Checker.GetRecord g = checker.getStarted(key, gateway);
        // Some gets page through the key: a page holds fewer values than a key does, and rule 1 holds for all pages.
        int pageValues = random.nextDouble() < PAGED_SHARE ? PAGE_MIN + random.nextInt(PAGE_MAX - PAGE_MIN + 1) : 0;
        pages(ClientGet.of(key).page(pageValues, Bytes.EMPTY), gateway, reply -> checker.getDone(g, reply));
    }

    /**
     * Sends {@code get} through {@code gateway}, and while {@code judge} says more pages follow, the next page after
     * the reply's placemark, through the same gateway (another if it stopped serving).
     */
    private void pages(ClientGet get, int gateway, Predicate<Message> judge) {
        send(get, gateway, reply -> {
            if (judge.test(reply)) {
                int next = world.servingIndexes().contains(gateway) ? gateway : gateway();
                pages(get.page(get.maxValues(), ((GetReply) reply).placemark()), next, judge);
            }
        });
    }

    private void remove(Id key) {
        List<PutRecord> candidates = new ArrayList<>();
        for (PutRecord p : checker.puts(key)) {
            // A value every copy of which a disk fault destroyed is gone rightly: removing it would answer NOT_FOUND.
            // So may one that liars' acks alone acknowledged.
            if (p.acked() && p.removeStartNanos == Long.MAX_VALUE && !p.lostToDiskFaults && !p.ackedOnLiarsWord
                    && p.earliestExpiryNanos() > now() + 5 * SECOND) {
                candidates.add(p);
            }
        }
        if (candidates.isEmpty()) {
            get(key);
            return;
        }
        ops++;
        PutRecord p = candidates.get(random.nextInt(candidates.size()));
        long start = now();
        checker.removeStarted(p);
        send(new ClientRemove(key, p.hash, p.sent, 0), reply -> checker.removeDone(p, start, reply));
    }

    /**
     * The final read (rule 5): every key once, with a quorum get (R = the default, a majority of k) through a random
     * gateway, {@link #FINAL_PAGE_VALUES} values a page, every page.
     */
    void finalRead() {
        for (Id key : keys) {
            int gateway = gateway();
            Checker.GetRecord g = checker.getStarted(key, gateway);
            ClientGet get = ClientGet.of(key, GetOptions.of(RoutingMode.DEFAULT).withQuorum(0));
            pages(get.page(FINAL_PAGE_VALUES, Bytes.EMPTY), gateway, reply -> checker.finalPage(g, reply));
        }
    }

    /** The first {@code n} of the workload's keys. */
    List<Id> firstKeys(int n) {
        return List.copyOf(keys.subList(0, Math.min(n, keys.size())));
    }

    /** Keys the final read reads. */
    int keys() {
        return keys.size();
    }

    /** A random serving gateway, or -1 when none serves. */
    private int gateway() {
        return gateway(world, random);
    }

    /** A serving gateway of {@code world} drawn from {@code random}, or -1 (no draw) when none serves. */
    static int gateway(VirtualWorld world, SplittableRandom random) {
        List<Integer> serving = world.servingIndexes();
        return serving.isEmpty() ? -1 : serving.get(random.nextInt(serving.size()));
    }

    private void send(Message request, Consumer<Message> answer) {
        send(request, gateway(), answer);
    }

    /**
     * Sends {@code request} through {@code gateway} (-1: none serves, answered UNAVAILABLE at once), answered once:
     * by the gateway, or by the client's own timeout.
     */
    void send(Message request, int gateway, Consumer<Message> answer) {
        if (gateway < 0) {
            answer.accept(new ErrorReply(Status.UNAVAILABLE, "client: no serving gateway"));
            return;
        }
        Node node = world.node(gateway);
        Cancellable[] timer = new Cancellable[1];
        boolean[] answered = new boolean[1];
        Consumer<Message> once = m -> {
            if (!answered[0]) {
                answered[0] = true;
                if (timer[0] != null) {
                    timer[0].cancel();
                }
                answer.accept(m);
            }
        };
        timer[0] = world.scheduler().schedule(clientTimeoutNanos,
                () -> once.accept(new ErrorReply(Status.TIMEOUT, "client: no answer from gateway " + gateway)));
        world.scheduler().execute(() -> {
            try {
                node.handleClient(request, once);
            } catch (RuntimeException e) {
                // A real gateway's event loop logs this and goes on; the node's own timeout may still answer.
                gatewayExceptions++;
            }
        });
    }

    long ops() {
        return ops;
    }

    long gatewayExceptions() {
        return gatewayExceptions;
    }
}
