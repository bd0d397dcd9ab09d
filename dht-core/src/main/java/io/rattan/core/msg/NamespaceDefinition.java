package io.rattan.core.msg;

import io.rattan.api.RoutingMode;
import java.util.regex.Pattern;

/**
 * One namespace of a cluster: a DHT of its own beside the others, with its own replication, storage and limits
 * (docs/node.md, "Namespaces"). An operator cannot change a definition once made: the cluster keeps one per name (of
 * two made at once, the one every node prefers alike), and a retired namespace stays retired (its name is never
 * reused, so a late copy cannot bring it back).
 *
 * @param name           the namespace's name: 1..{@value #NAME_CHARS_MAX} of {@code a-z 0-9 . _ -}, starting with a
 *                       letter or digit; {@value #DEFAULT} is the node's own settings and cannot be defined
 * @param replicas       k: how many nodes hold each value
 * @param writeQuorum    W: a put is acknowledged once this many hold it
 * @param inMemory       values kept in memory only (nothing on disk), else in the node's store on disk
 * @param ttlSecondsMax  the longest TTL a put may ask
 * @param valueBytesMax  the largest value
 * @param routing        how a get routes when its client does not say
 * @param retired        the namespace was retired: its values are dropped and it takes no more requests
 */
public record NamespaceDefinition(String name, int replicas, int writeQuorum, boolean inMemory, int ttlSecondsMax,
                                  int valueBytesMax, RoutingMode routing, boolean retired) {

    /** The namespace of the keys under {@code /v1/keys}: the node's own settings. */
    public static final String DEFAULT = "default";
    public static final int NAME_CHARS_MAX = 64;
    /** The most namespaces a cluster may define (retired ones included): each costs every node a store and timers. */
    public static final int COUNT_MAX = 64;
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0," + (NAME_CHARS_MAX - 1) + "}");

    public NamespaceDefinition {
        String problem = problem(name, replicas, writeQuorum, ttlSecondsMax, valueBytesMax, routing);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    /** What is wrong with these settings, or null when they make a definition (bounds of the node aside). */
    public static String problem(String name, int replicas, int writeQuorum, int ttlSecondsMax, int valueBytesMax,
                                 RoutingMode routing) {
        if (name == null || !NAME.matcher(name).matches()) {
            return "a namespace's name is 1.." + NAME_CHARS_MAX
                    + " of a-z 0-9 . _ -, starting with a letter or digit, got '" + name + "'";
        }
        if (replicas < 1) {
            return "replicas must be at least 1, got " + replicas;
        }
        if (writeQuorum < 1 || writeQuorum > replicas) {
            return "writeQuorum must be 1..replicas (" + replicas + "), got " + writeQuorum;
        }
        if (ttlSecondsMax < 1) {
            return "ttlSecondsMax must be at least 1, got " + ttlSecondsMax;
        }
        if (valueBytesMax < 1) {
            return "valueBytesMax must be at least 1, got " + valueBytesMax;
        }
        return routing == null ? "routing must be given" : null;
    }

    /** True when the name is well formed (the default namespace's included). */
    public static boolean validName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** This definition, retired. */
    public NamespaceDefinition retire() {
        return new NamespaceDefinition(name, replicas, writeQuorum, inMemory, ttlSecondsMax, valueBytesMax, routing,
                true);
    }

    /** The same settings, retired or not: what "the same body again" means for an immutable definition. */
    public boolean sameSettings(NamespaceDefinition other) {
        return other != null && other.retire().equals(retire());
    }
}
