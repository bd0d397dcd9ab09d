package io.rattan.core.node;

/**
 * What a key's root takes from one origin (the gateway that took a put from its client, proven by its signature
 * over the put: {@link io.rattan.core.msg.RequestMessages.PutRequest#originProven}), so that a node that sends puts on the
 * peer port itself pays as a client does at a gateway. Each root keeps its own count, as each gateway keeps its
 * clients'.
 *
 * @param proofsRequired a routed put that reaches its root without a valid origin signature is refused
 *                       ({@code FORBIDDEN}); false only while nodes of protocol 16, which sign none, are in the
 *                       cluster (a rolling upgrade): such puts are then counted against the origin they name
 * @param putsPerSecond  puts a second this root takes from one origin (a burst of one second), or -1: no bound
 * @param storageBytes   live value bytes this root takes from one origin until they expire, or -1: no bound
 */
public record OriginLimits(boolean proofsRequired, int putsPerSecond, long storageBytes) {

    /** Off: no bound, for either. */
    public static final int OFF = -1;
    /** The default rate: four times a client's at a gateway, for a gateway's many clients. */
    public static final int PUTS_PER_SECOND = 4_096;
    /** The default share: 1 GiB, sixteen clients' shares at a gateway. */
    public static final long STORAGE_BYTES = 1L << 30;
    /** Proofs required, the default rate and share. */
    public static final OriginLimits DEFAULTS = new OriginLimits(true, PUTS_PER_SECOND, STORAGE_BYTES);
    /** Nothing checked nor counted: a root that takes every put as it comes, as one of protocol 16 did. */
    public static final OriginLimits NONE = new OriginLimits(false, OFF, OFF);

    public OriginLimits {
        if (putsPerSecond != OFF && putsPerSecond < 1 || storageBytes != OFF && storageBytes < 1) {
            throw new IllegalArgumentException("origin limits must be positive, or -1 for none");
        }
    }
}
