package io.rattan.core.node;

import io.rattan.api.Id;

/**
 * What a next-hop policy may know of delays: each neighbour's smoothed RTT and the typical one. The node's view is
 * owned by its event loop; a benchmark passes its own.
 */
public interface RttView {

    /** The neighbour's smoothed RTT, negative when not measured. */
    long srttNanos(Id peer);

    /** The median smoothed RTT over every measured neighbour, negative when none is measured. */
    long medianSrttNanos();
}
