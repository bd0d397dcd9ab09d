package io.rattan.bench.harness;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Status;
import io.rattan.core.util.Bytes;
import io.rattan.sim.experiment.TableDraws;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;

/**
 * The values a {@code bench table} run puts, {@code values.get(i)} under {@code keys.get(i)}: drawn as the
 * simulator's put phase draws them ({@link TableDraws}), put one after another through random gateways until one
 * stores each (at most 5 attempts), kept for a day so that no re-put is needed during the get phase. With every put
 * stored at its first attempt, as on a healthy cluster, the keys and values are the simulator's for the same seed.
 */
record TablePopulation(List<Id> keys, List<Bytes> values) {

    private static final int ATTEMPTS = 5;
    private static final int TTL_SECONDS = 86_400;

    static TablePopulation put(GatewayLinks links, SplittableRandom random, int nodes, int count, long giveUpNanos,
                               PrintWriter log) throws IOException, InterruptedException {
        List<Id> keys = new ArrayList<>();
        List<Bytes> values = new ArrayList<>();
        int unplaced = 0;
        int retried = 0;
        for (int i = 0; keys.size() < count; i++) {
            Id key = TableDraws.key(random);
            Bytes value = TableDraws.value(i, random);
            Message put = null;
            for (int attempt = 0; attempt < ATTEMPTS && !stored(put); attempt++) {
                retried += attempt > 0 ? 1 : 0;
                put = await(links, TableDraws.putGateway(random, nodes),
                        new ClientPut(key, value, TTL_SECONDS, Bytes.EMPTY), giveUpNanos);
            }
            if (stored(put)) {
                keys.add(key);
                values.add(value);
            } else if (++unplaced > count) {
                throw new IOException("more puts failed " + ATTEMPTS + " times than values were asked for; the last "
                        + "answer: " + put);
            }
        }
        if (retried > 0 || unplaced > 0) {
            // Each attempt draws its gateway: the rounds match the simulator's only if its puts took as many.
            log.printf("  %d put attempts were retried and %d keys replaced after %d failed attempts: the rounds "
                    + "are the simulator's for this seed only if its puts needed the same attempts%n", retried,
                    unplaced, ATTEMPTS);
        }
        return new TablePopulation(keys, values);
    }

    private static boolean stored(Message m) {
        return m instanceof PutReply p && p.status() == Status.OK;
    }

    private static Message await(GatewayLinks links, int node, Message request, long giveUpNanos)
            throws InterruptedException {
        try {
            return links.request(node, request, giveUpNanos).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("a put's answer failed", e.getCause());
        }
    }
}
