package io.rattan.core.msg;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import java.util.List;

/**
 * The messages of repair: digests of records and of key ranges, and the records a peer wants.
 */
public final class RepairMessages {

    private RepairMessages() {
    }

    /**
     * An anti-entropy summary entry, naming a record by its key and slot ({@code StoredRecord.slot}: a value's hash,
     * or since protocol version 16 a name that commits to a bound value's binding too). For an owned record, {@code seq} is its sequence and {@code stampTag} the first
     * 8 bytes of its signature with the lowest bit set (never 0), which differ between any two versions; for an
     * unowned one both are 0. So two replicas holding different versions of one owned value see a difference, and
     * which one is greater (protocol version 8).
     */
    public record DigestEntry(Id key, Bytes slot, boolean tombstone, long seq, long stampTag) {
        public DigestEntry(Id key, Bytes slot, boolean tombstone) {
            this(key, slot, tombstone, 0, 0);
        }
    }

    /** Anti-entropy: what the sender holds that the receiver should also hold; answered with {@link DigestWant}. */
    public record Digest(List<DigestEntry> entries) implements Message {
        public Digest {
            entries = List.copyOf(entries);
        }

        public MessageType type() {
            return MessageType.DIGEST;
        }
    }

    /** The digest entries the receiver lacks; the digest's sender then pushes them with {@link StoreReplicas}. */
    public record DigestWant(List<DigestEntry> entries) implements Message {
        public DigestWant {
            entries = List.copyOf(entries);
        }

        public MessageType type() {
            return MessageType.DIGEST_WANT;
        }
    }

    /**
     * One part of a key range as range-digest repair summarises it: how many records the part holds and the sum
     * (mod 2^64) of their 64-bit hashes. A record's hash covers (key, value hash, tombstone, sequence number; the last
     * is 0 until values carry one), so two parts are equal exactly when, but for a hash collision, they hold the same
     * records.
     */
    public record RangeSum(int count, long hash) {
    }

    /**
     * Range-digest repair: the sender's {@link RangeSum}s of the {@code parts.size()} equal parts of the clockwise
     * arc [{@code lo}, {@code hi}) (lo == hi: the whole ring), over the records both it and the receiver should hold
     * (with {@code handoff}, as replicas of the leaving sender's keys: one more node per key). Answered with
     * {@link RangeDigestReply}: the receiver's sums of the same parts.
     */
    public record RangeDigest(Id lo, Id hi, boolean handoff, List<RangeSum> parts) implements Message {
        public RangeDigest {
            parts = List.copyOf(parts);
        }

        public MessageType type() {
            return MessageType.RANGE_DIGEST;
        }
    }

    /** The receiver's sums of the parts a {@link RangeDigest} named, in the same order. */
    public record RangeDigestReply(List<RangeSum> parts) implements Message {
        public RangeDigestReply {
            parts = List.copyOf(parts);
        }

        public MessageType type() {
            return MessageType.RANGE_DIGEST_REPLY;
        }
    }
}
