package io.rattan.client;

import io.rattan.api.Bytes;
import java.util.Objects;

/**
 * A put the DHT acknowledged.
 *
 * @param valueHash SHA-256 of the value: its identity under the key, and what {@code remove} names it by
 * @param replicas  how many replicas held the value when the gateway acknowledged it (at least the write quorum)
 */
public record PutResult(Bytes valueHash, int replicas) {

    public PutResult {
        Objects.requireNonNull(valueHash, "valueHash");
    }
}
