package io.rattan.core.behaviour;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoredRecord;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * A running cluster as the behaviour suite sees it; one implementation runs nodes in the virtual world, another
 * real nodes on Netty loopback with RocksDB.
 */
public interface ClusterHarness extends AutoCloseable {

    int size();

    /** Sends a client request to node {@code node} as gateway and waits for its answer. */
    Message request(int node, Message clientRequest);

    /** Kills a node abruptly: it sends nothing more. */
    void kill(int node);

    /** Stops a node gracefully: it hands its records to its neighbours, then stops. */
    void leave(int node);

    /** Starts a killed node again with its id and its data. */
    void restart(int node);

    boolean isAlive(int node);

    NodeStatus status(int node);

    /**
     * The record a node's own store holds (value or tombstone) in {@code slot} ({@link StoredRecord#slot}: the value
     * hash of a value put without a secret), read directly, bypassing the overlay.
     */
    Optional<StoredRecord> read(int node, Id key, Bytes slot);

    /**
     * Makes a node's own store lose one record, as a lost write or a disk restored from an old copy would: it is
     * overwritten with a copy that expires a millisecond later by the store's clock, and that millisecond is let pass.
     * The node sends nothing. For tests that give one replica less than the others.
     */
    void loseRecord(int node, Id key, Bytes slot);

    /** Waits until {@code condition} holds: virtual time in the virtual world, a generous wall-clock bound for real. */
    void await(String what, BooleanSupplier condition);

    /** Lets time pass so that maintenance runs: virtual time, or wall-clock time on real nodes. */
    void pass(Duration d);

    @Override
    void close();
}
