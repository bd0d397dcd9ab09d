package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.OwnerStamp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The live values under a key, as one or more pages of a get returned them.
 *
 * @param values    the values, in value-hash order, each at most once
 * @param hops      overlay hops taken, summed over the pages fetched
 * @param pages     how many get requests (pages) produced this result
 * @param placemark empty when every value was fetched; otherwise where the next page starts (pass it to
 *                  {@link RattanClient#getPage}). {@link RattanClient#get} leaves it non-empty only when it stopped
 *                  at its page bound.
 * @param cost      messages and bytes the gets cost in the overlay, summed over the pages fetched, as the answering
 *                  copy of each page counted them in band: forwards, hop acks, timed-out forwards, iterative queries
 *                  and replies, the final reply; not the client's own request and reply, nor copies that lost a race
 *                  (see {@link Cost})
 * @param partial   true when a quorum get ({@link io.rattan.api.GetOptions#withQuorum}) reached fewer than
 *                  the R replicas it asked for, for some page: the values are the merge of the replicas it did reach,
 *                  and may lack a value only the others hold. Always false for a get of one replica (the default)
 */
public record GetResult(List<Value> values, int hops, int pages, Bytes placemark, Cost cost, boolean partial) {

    public GetResult {
        values = List.copyOf(values);
        Objects.requireNonNull(placemark, "placemark");
        Objects.requireNonNull(cost, "cost");
    }

    /** A result that is not partial. */
    public GetResult(List<Value> values, int hops, int pages, Bytes placemark, Cost cost) {
        this(values, hops, pages, placemark, cost, false);
    }

    /** A result whose cost is unknown (zero), not partial. */
    public GetResult(List<Value> values, int hops, int pages, Bytes placemark) {
        this(values, hops, pages, placemark, Cost.ZERO);
    }

    /** True when no further page remains, i.e. {@link #values()} is the whole live value set. */
    public boolean complete() {
        return placemark.isEmpty();
    }

    /**
     * One live value.
     *
     * @param value        the value's bytes
     * @param valueHash    SHA-256 of {@code value}, computed by the client
     * @param ttlRemaining how long the value had left to live when the replica answered
     * @param owner        for an owned value, its owner's stamp (owner key, value id, sequence, signed expiry and
     *                     signature), which the client verified before handing the value over; null for an
     *                     unowned value
     */
    public record Value(Bytes value, Bytes valueHash, Duration ttlRemaining, OwnerStamp owner) {

        public Value {
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(valueHash, "valueHash");
            Objects.requireNonNull(ttlRemaining, "ttlRemaining");
        }

        /** An unowned value. */
        public Value(Bytes value, Bytes valueHash, Duration ttlRemaining) {
            this(value, valueHash, ttlRemaining, null);
        }

        /** True when the value has an owner ({@link #owner()}). */
        public boolean isOwned() {
            return owner != null;
        }

        /** A copy of the value's bytes. */
        public byte[] bytes() {
            return value.toByteArray();
        }

        /** The value decoded as UTF-8 (malformed input is replaced, never an error). */
        public String utf8() {
            return new String(value.toByteArray(), StandardCharsets.UTF_8);
        }
    }
}
