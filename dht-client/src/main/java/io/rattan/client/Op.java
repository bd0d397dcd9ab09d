package io.rattan.client;

/** The client's operations, as they are named in metrics and messages. */
enum Op {
    PUT("put"),
    GET("get"),
    REMOVE("remove"),
    /** A page of the ring, loaded in the background for one-hop gets. */
    RING("ring");

    private final String tag;

    Op(String tag) {
        this.tag = tag;
    }

    /** The lower-case name used as the {@code op} tag and in exception messages. */
    String tag() {
        return tag;
    }
}
