package io.rattan.sim.experiment;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.PutReply;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The values an {@link OpenDhtTable} run's put phase stored, {@code values.get(i)} under {@code keys.get(i)}, and
 * how many attempts it took beyond one per value. The simulator and {@code ./rattan bench table} put them the same
 * way, so that one seed gives both the same keys and rounds.
 *
 * @param keys     the keys, one per value
 * @param values   the values
 * @param retried  put attempts after a first one failed
 * @param replaced keys given up after {@value #ATTEMPTS} failed attempts and replaced by others
 */
public record StoredValues(List<Id> keys, List<Bytes> values, int retried, int replaced) {

    /** Attempts at one key before it is replaced by another. */
    public static final int ATTEMPTS = 5;

    private static final int TTL_SECONDS = 86_400;
    private static final long RETRY_STREAM = 0x2545F4914F6CDD1DL;

    /** One put attempt: the answer of {@code gateway} to {@code put}. */
    @FunctionalInterface
    public interface Attempt<E extends Exception> {
        /** Sends {@code put} through node {@code gateway} and returns its answer. */
        Message put(int gateway, ClientPut put) throws E;
    }

    /**
     * Puts {@code count} values one after another, each through random gateways among the first {@code nodes} until
     * one stores it, kept alive for a day. Each value's key, data and first gateway come from {@code random}; retries
     * and replacement keys from a stream of their own ({@code seed}'s), so that the draws after the put phase (the
     * rounds) are the same for a seed however many attempts the puts needed.
     */
    public static <E extends Exception> StoredValues put(SplittableRandom random, long seed, int nodes, int count,
                                                         Attempt<E> attempt) throws E {
        SplittableRandom again = new SplittableRandom(seed ^ RETRY_STREAM);
        List<Id> keys = new ArrayList<>();
        List<Bytes> values = new ArrayList<>();
        int replaced = 0;
        int retried = 0;
        for (int i = 0; keys.size() < count; i++) {
            SplittableRandom draws = i < count ? random : again;
            Id key = TableDraws.key(draws);
            Bytes value = TableDraws.value(i, draws);
            ClientPut request = new ClientPut(key, value, TTL_SECONDS, Bytes.EMPTY);
            // A client retries a put that a slow root or replica let time out, through another gateway.
            Message answer = attempt.put(TableDraws.putGateway(draws, nodes), request);
            for (int n = 1; n < ATTEMPTS && !stored(answer); n++) {
                retried++;
                answer = attempt.put(TableDraws.putGateway(again, nodes), request);
            }
            if (stored(answer)) {
                keys.add(key);
                values.add(value);
            } else if (++replaced > count) {
                throw new IllegalStateException("more puts failed " + ATTEMPTS + " times than values were asked for; "
                        + "the last answer: " + answer);
            }
        }
        return new StoredValues(List.copyOf(keys), List.copyOf(values), retried, replaced);
    }

    /** What the put phase needed beyond one attempt per value, or null when it needed nothing more. */
    public String extraAttempts() {
        if (retried == 0 && replaced == 0) {
            return null;
        }
        return retried + " put attempts were retried and " + replaced + " keys replaced after " + ATTEMPTS
                + " failed attempts (drawn apart from the rounds, which stay the seed's)";
    }

    private static boolean stored(Message m) {
        return m instanceof PutReply p && p.status() == Status.OK;
    }
}
