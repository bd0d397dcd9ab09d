package io.rattan.bench.harness;

import io.rattan.api.Id;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What {@code rattan bench watch} watches and puts through: Rattan's gateways over the binary RPC
 * ({@link RattanWatches}), or OpenDHT's REST proxies ({@link OpenDhtListens}). Thread-safe.
 */
interface WatchTarget extends AutoCloseable {

    /** How many gateways (or proxies) the watches are spread over. */
    int gateways();

    /**
     * Watches {@code key} through gateway {@code gateway}; {@code heard} gets each value's bytes, on any thread. The
     * future completes once the watch is ready: every later put is news to it.
     */
    CompletableFuture<Void> watch(int gateway, Id key, Consumer<byte[]> heard);

    /** Puts {@code value} under {@code key}, to live {@code ttlSeconds}; completes when it was acknowledged. */
    CompletableFuture<Void> put(Id key, byte[] value, int ttlSeconds);

    @Override
    void close();
}
