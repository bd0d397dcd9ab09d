package io.rattan.core.msg;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * The messages of watches (protocol version 10): a gateway's registration at a key's replicas, their changes, and
 * the client's watch and its events.
 */
public final class WatchMessages {

    private WatchMessages() {
    }

    /**
     * A gateway registers its watch of {@code key} at a replica for {@code leaseMillis}, renews it, or (with
     * {@code leaseMillis} 0) ends it; {@code epoch} names the gateway's watch of the key, so that a renewal is told
     * from a new watch. With {@code wantRecords} the answer carries a page of the replica's records of the key whose
     * value hash follows {@code placemark}, read when the registration took effect. Answered with {@link WatchAck}.
     */
    public record Watch(Id key, long epoch, int leaseMillis, boolean wantRecords, Bytes placemark)
            implements Message {
        public MessageType type() {
            return MessageType.WATCH;
        }
    }

    /**
     * A replica's answer to a {@link Watch}: {@code status} OK when it holds the watch now (else why not: not a
     * replica of the key in its view, or full); {@code renewed} when the same watch was registered already, and then
     * {@code changesSent} how many {@link WatchChange}s it has sent for it; {@code replicas} the key's replica set as
     * it sees it; {@code records} the page asked for (tombstones without their secret), {@code more} when more follow.
     */
    public record WatchAck(Status status, boolean renewed, long changesSent, List<Contact> replicas,
                           List<ReplicaRecord> records, boolean more) implements Message {
        public WatchAck {
            replicas = List.copyOf(replicas);
            records = List.copyOf(records);
        }

        public MessageType type() {
            return MessageType.WATCH_ACK;
        }
    }

    /**
     * A replica tells a watching gateway the records of {@code key} it has just stored (tombstones without their
     * secret); {@code number} counts the changes it sent for this watch (1, 2, ...), so that a gap shows. Not answered.
     */
    public record WatchChange(Id key, long epoch, long number, List<ReplicaRecord> records) implements Message {
        public WatchChange {
            records = List.copyOf(records);
        }

        public MessageType type() {
            return MessageType.WATCH_CHANGE;
        }
    }

    /**
     * Client protocol: watch {@code key}'s values that pass {@code filter}. Answered by a stream of
     * {@link WatchEvent}s carrying this request's id, until one of kind {@code ENDED} or a {@link ClientUnwatch}.
     * {@code resumeEpoch} and {@code resumeSeq} name the last event a previous watch of the key delivered (0 and 0:
     * none): a gateway that still holds the events since sends those, any other the key's live values again.
     */
    public record ClientWatch(Id key, ValueFilter filter, long resumeEpoch, long resumeSeq) implements Message {
        public MessageType type() {
            return MessageType.CLIENT_WATCH;
        }
    }

    /** Client protocol: ends the watch the request {@code watchRequestId} started on this connection; not answered. */
    public record ClientUnwatch(long watchRequestId) implements Message {
        public MessageType type() {
            return MessageType.CLIENT_UNWATCH;
        }
    }

    /**
     * One event of a client's watch, as the gateway delivers it (on the binary RPC, with the watch request's id).
     * {@code epoch} and {@code seq} name it for a resume ({@link ClientWatch}); {@code valueHash} is the value's hash
     * (an owned value's slot) for {@code VALUE}, {@code REMOVED} and {@code EXPIRED}; {@code value} the value for
     * {@code VALUE} ({@link #NO_VALUE} otherwise); {@code status} and {@code detail} why an {@code ENDED} watch ended.
     */
    public record WatchEvent(WatchKind kind, long epoch, long seq, Bytes valueHash, ValueEntry value, Status status,
                             String detail) implements Message {
        /** The value of an event that carries none. */
        public static final ValueEntry NO_VALUE = new ValueEntry(Bytes.EMPTY, 0);
        /**
         * The detail of the READY that follows the events since a resume position ({@link ClientWatch}), when the
         * gateway still held them; any other READY follows a snapshot of the live values.
         */
        public static final String RESUMED = "resumed";

        public MessageType type() {
            return MessageType.WATCH_EVENT;
        }

        /** An event of {@code kind} other than {@code ENDED}. */
        public static WatchEvent of(WatchKind kind, long epoch, long seq, Bytes valueHash, ValueEntry value) {
            return new WatchEvent(kind, epoch, seq, valueHash, value, Status.OK, "");
        }

        /** The last event of a watch, which ended for {@code status}. */
        public static WatchEvent ended(Status status, String detail) {
            return new WatchEvent(WatchKind.ENDED, 0, 0, Bytes.EMPTY, NO_VALUE, status, detail);
        }
    }
}
