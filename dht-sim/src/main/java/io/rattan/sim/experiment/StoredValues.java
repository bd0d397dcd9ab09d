package io.rattan.sim.experiment;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Status;
import io.rattan.core.util.Bytes;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/** The values an {@link OpenDhtTable} run's put phase stored, {@code values.get(i)} under {@code keys.get(i)}. */
record StoredValues(List<Id> keys, List<Bytes> values) {

    /**
     * Puts {@code count} values one after another, each through random gateways among the first {@code nodes} until
     * one stores it, kept alive for a day.
     */
    static StoredValues put(VirtualWorld world, SplittableRandom random, int nodes, int count,
                            Consumer<String> log) {
        List<Id> keys = new ArrayList<>();
        List<Bytes> values = new ArrayList<>();
        int unplaced = 0;
        for (int i = 0; keys.size() < count; i++) {
            Id key = TableDraws.key(random);
            Bytes value = TableDraws.value(i, random);
            // A client retries a put that a slow root or replica let time out, through another gateway.
            Message put = null;
            for (int attempt = 0; attempt < 5 && !(put instanceof PutReply p && p.status() == Status.OK); attempt++) {
                put = world.request(TableDraws.putGateway(random, nodes),
                        new ClientPut(key, value, 86_400, Bytes.EMPTY));
            }
            if (put instanceof PutReply p && p.status() == Status.OK) {
                keys.add(key);
                values.add(value);
            } else if (++unplaced > count) {
                throw new IllegalStateException("more puts failed 5 times than values were asked for: " + put);
            }
        }
        if (unplaced > 0) {
            // A key whose root sits in a long slow period cannot be stored; it is replaced by another key.
            log.accept(unplaced + " keys could not be put in 5 attempts and were replaced by others");
        }
        return new StoredValues(keys, values);
    }
}
