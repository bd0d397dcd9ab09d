package io.rattan.core.node;

/**
 * The bounds of watches on a node.
 *
 * @param leaseMillis                how long a replica keeps a gateway's registration unless it is renewed; gateways
 *                                   renew at a third of it, and a watch that outlives its last client lingers a third
 *                                   of it, so that a client that reconnects resumes where it was
 * @param watchesMax                 most client watches this node serves as gateway (beyond: refused, HTTP 429)
 * @param registrationsMax           most gateway registrations this node holds as replica
 * @param registrationsPerGatewayMax most of them from one gateway
 */
public record WatchLimits(long leaseMillis, int watchesMax, int registrationsMax, int registrationsPerGatewayMax) {

    /** 90 s leases, 10,000 watches per gateway, 100,000 registrations per replica, 25,000 of one gateway. */
    public static final WatchLimits DEFAULTS = new WatchLimits(90_000, 10_000, 100_000, 25_000);

    public WatchLimits {
        if (leaseMillis < 3 || leaseMillis > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("watch leaseMillis must be 3..2^31-1");
        }
        if (watchesMax < 1 || registrationsMax < 1 || registrationsPerGatewayMax < 1
                || registrationsPerGatewayMax > registrationsMax) {
            throw new IllegalArgumentException("watch bounds must be positive, one gateway's at most the node's");
        }
    }

    /** How often a gateway renews its registrations: a third of the lease. */
    public long renewMillis() {
        return leaseMillis / 3;
    }
}
