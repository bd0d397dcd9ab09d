package io.rattan.sim.experiment;

import io.rattan.api.Address;
import io.rattan.api.Cost;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MessageType;
import io.rattan.core.virtual.VirtualNetwork;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counts every message sent in the world, charged to the get that caused it. A get's events carry its cause tag
 * ({@link VirtualScheduler#cause}), which every event scheduled from them inherits; so forwards, hop acks, replies,
 * re-routes after a timeout, the probes a timeout sets off, answers that arrive after a get was decided, and the
 * client-gateway messages of every copy are all charged to it. Untagged messages are maintenance. Bytes are the
 * encoded frame plus {@link Cost#HEADER_BYTES} per message.
 */
final class CostMeter implements VirtualNetwork.Observer {

    private final VirtualScheduler scheduler;
    private final MessageCodec codec = new MessageCodec();
    private final long[] messages;
    private final long[] bytes;
    private final Map<MessageType, long[]> byType = new EnumMap<>(MessageType.class);
    private long maintenanceMessages;
    private long maintenanceBytes;
    private boolean counting;

    /** @param causes cause tags run from 1 to {@code causes} */
    CostMeter(VirtualScheduler scheduler, int causes) {
        this.scheduler = scheduler;
        this.messages = new long[causes + 1];
        this.bytes = new long[causes + 1];
    }

    /** Starts or stops counting untagged traffic as maintenance (tagged traffic is always counted). */
    void countMaintenance(boolean on) {
        counting = on;
    }

    @Override
    public void sent(Address from, Address to, Envelope envelope) {
        long cause = scheduler.cause();
        if (cause == 0 && !counting) {
            return;
        }
        long size = codec.encodedSize(envelope) + (long) Cost.HEADER_BYTES;
        byType.computeIfAbsent(envelope.body().type(), t -> new long[1])[0]++;
        if (cause == 0) {
            maintenanceMessages++;
            maintenanceBytes += size;
        } else {
            messages[(int) cause]++;
            bytes[(int) cause] += size;
        }
    }

    long messages(int cause) {
        return messages[cause];
    }

    long bytes(int cause) {
        return bytes[cause];
    }

    long maintenanceMessages() {
        return maintenanceMessages;
    }

    long maintenanceBytes() {
        return maintenanceBytes;
    }

    /** Messages sent while counting, by type. */
    Map<MessageType, Long> sentByType() {
        Map<MessageType, Long> m = new EnumMap<>(MessageType.class);
        byType.forEach((t, n) -> m.put(t, n[0]));
        return m;
    }
}
