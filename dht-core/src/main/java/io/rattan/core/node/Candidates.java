package io.rattan.core.node;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The second-hand contacts this node is probing: ids it was told of (in a leaf-set exchange, a join's contact list,
 * a pong's suggestion) and pings before it lets them into its leaf set or routing table. What a stranger can make
 * this node hold here is bounded: at most {@code max} contacts at once, and at most {@code perHost} of one host
 * (other than this node's own), so that one host's thousands of made-up ids cannot crowd out the contacts honest
 * neighbours name. A contact refused here is simply not probed: it is named again by the next exchange. Owned by
 * the node's event loop.
 */
final class Candidates {

    private final int max;
    private final int perHost;
    private final String selfHost;
    // Looked up and counted only, never iterated: hash order cannot leak into what the node does.
    private final Map<Id, String> hostById = new LinkedHashMap<>();
    private final Map<String, Integer> countByHost = new HashMap<>();

    /**
     * @param max      most contacts probed at once
     * @param perHost  most contacts of one host probed at once (-1: no bound but {@code max})
     * @param selfHost this node's host, not bounded per host
     */
    Candidates(int max, int perHost, String selfHost) {
        this.max = max;
        this.perHost = perHost;
        this.selfHost = HostKeys.of(selfHost);
    }

    /** Takes {@code c} in to be probed; false when it is being probed already or there is no room for it. */
    boolean admit(Contact c) {
        if (hostById.size() >= max || hostById.containsKey(c.id())) {
            return false;
        }
        String host = HostKeys.of(c.address().host());
        int n = countByHost.getOrDefault(host, 0);
        if (perHost > 0 && n >= perHost && !host.equals(selfHost)) {
            return false;
        }
        hostById.put(c.id(), host);
        countByHost.put(host, n + 1);
        return true;
    }

    /** The probe of {@code id} ended (answered or not). */
    void settled(Id id) {
        String host = hostById.remove(id);
        if (host != null) {
            int n = countByHost.get(host) - 1;
            if (n == 0) {
                countByHost.remove(host);
            } else {
                countByHost.put(host, n);
            }
        }
    }

    boolean contains(Id id) {
        return hostById.containsKey(id);
    }

    int size() {
        return hostById.size();
    }
}
