package io.rattan.bench.cluster;

/** A cluster operation that could not be done; its message says which node and why, for the user to read. */
final class ClusterException extends Exception {

    ClusterException(String message) {
        super(message);
    }
}
