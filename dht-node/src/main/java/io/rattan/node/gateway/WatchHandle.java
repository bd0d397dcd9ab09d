package io.rattan.node.gateway;

/** A client's watch at the node ({@link GatewayBackend#watch}); closing it ends the watch. Thread-safe. */
public interface WatchHandle extends AutoCloseable {

    /** Ends the watch: its sink hears nothing more once this has run on the node's loop. Idempotent. */
    @Override
    void close();
}
