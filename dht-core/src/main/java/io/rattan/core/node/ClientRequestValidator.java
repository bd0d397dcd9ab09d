package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.ClientMessages.ClientRing;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.store.StoredRecord;
import java.util.Optional;

/**
 * Checks a request's sizes and formats against a node's limits, once, where it enters: a client request at the
 * gateway that takes it (binary RPC, HTTP, the virtual world's clients), before anything is routed; a peer's put where
 * the node takes it from the peer. Pure and thread-safe.
 */
public final class ClientRequestValidator {

    static final int SECRET_BYTES_MAX = 1024;

    private ClientRequestValidator() {
    }

    /**
     * The refusal of a client put, get, remove or ring request that the node with {@code config} cannot serve as it
     * is, with a precise detail; empty when it may be served. The get's options were checked when they were made
     * ({@link GetOptions}' constructor); here only how they combine with the request and the node.
     */
    public static Optional<ErrorReply> check(Message m, NodeConfig config) {
        switch (m.type()) {
            case CLIENT_PUT: {
                ClientPut p = (ClientPut) m;
                if (p.stamp() == null && !p.condition().isNone()) {
                    return bad("a condition (If-Match, If-None-Match) applies to owned values only");
                }
                return checkPut(p.value(), p.ttlSeconds(), p.binding(), p.stamp() != null, config);
            }
            case CLIENT_GET:
                return checkGet((ClientGet) m, config);
            case CLIENT_REMOVE:
                return checkRemove((ClientRemove) m, config);
            case CLIENT_RING: {
                ClientRing r = (ClientRing) m;
                // Larger pages are clamped to the node's bound, as a get's are.
                if (r.maxNodes() < 0) {
                    return bad("max nodes must be >= 0 (0 = the node's page bound)");
                }
                return r.placemark().isEmpty() || r.placemark().length() == Id.BYTES ? Optional.empty()
                        : bad("placemark must be a 20-byte node id or empty");
            }
            case IN_NAMESPACE: {
                // The namespace's own limits apply where it is known: at the node, when it serves the request.
                Message inner = ((InNamespace) m).body();
                return inner.type() == MessageType.CLIENT_RING ? bad("the ring is asked for outside namespaces")
                        : check(inner, config.withReplicas(config.leafSetHalf() + 1, 1)
                        .withLimits(NodeConfig.WIRE_VALUE_BYTES_MAX, Integer.MAX_VALUE, config.pageValuesMax(),
                                Math.max(config.pageBytesMax(), NodeConfig.WIRE_VALUE_BYTES_MAX)));
            }
            default:
                return bad("not a client request: " + m.type());
        }
    }

    /**
     * A peer's put passes the same limits as a client's, and its expiry, set by the gateway's expiry clock, has not
     * passed by more than 2 S by this node's ({@code nowMillis}), the most two clocks within S of the true time
     * differ. (An expiry too far ahead is capped where the record is stored, {@code LocalReplica}.)
     */
    static Optional<ErrorReply> checkPeerPut(PutRequest p, NodeConfig config, long nowMillis) {
        Optional<ErrorReply> invalid = checkPut(p.value(), p.ttlSeconds(), p.binding(), p.stamp() != null, config);
        if (invalid.isEmpty() && p.expiresAtMillis() + ExpiryClock.SPREAD_BOUND_MILLIS <= nowMillis) {
            // An owned value's expiry is its owner's, signed: refused as a replica refuses it.
            return Optional.of(new ErrorReply(p.stamp() == null ? Status.BAD_REQUEST : Status.FORBIDDEN,
                    "expired before it reached this node: its expiry is " + p.expiresAtMillis()
                            + ", this node's clock reads " + nowMillis));
        }
        return invalid;
    }

    private static Optional<ErrorReply> checkGet(ClientGet g, NodeConfig config) {
        GetOptions options = g.options();
        // Larger pages are clamped to the node's page limit, not refused: the client cannot know it.
        if (g.maxValues() < 0) {
            return bad("max values must be >= 0 (0 = the node's page limit)");
        }
        if (!g.placemark().isEmpty() && g.placemark().length() != StoredRecord.HASH_BYTES) {
            return bad("placemark must be a 32-byte value hash or empty");
        }
        if (options.routing() == RoutingMode.ITERATIVE && options.maxCopies() > 1) {
            // The other nodes would route their copies recursively: an iterative get runs where it started.
            return bad("an iterative get runs at one gateway: use gateways=1, no hedge and no one-hop");
        }
        if (options.readReplicas() > config.replicas()) {
            return bad("r must be 1.." + config.replicas() + " (the key's replicas; 0 or absent: "
                    + config.readQuorumDefault() + "), got " + options.readReplicas());
        }
        return Optional.empty();
    }

    private static Optional<ErrorReply> checkRemove(ClientRemove r, NodeConfig config) {
        if (r.valueHash().length() != StoredRecord.HASH_BYTES) {
            return bad("value hash must be 32 bytes (SHA-256 of the value)");
        }
        if (r.secret().isEmpty() || r.secret().length() > SECRET_BYTES_MAX) {
            return bad("secret must be 1.." + SECRET_BYTES_MAX + " bytes");
        }
        if (r.ttlSeconds() < 0 || r.ttlSeconds() > config.ttlSecondsMax()) {
            return bad("ttl must be 0.." + config.ttlSecondsMax() + " seconds (0 = the maximum)");
        }
        return Optional.empty();
    }

    /** An owned put's expiry and signature are judged where it is stored, by a clock: here only its form. */
    private static Optional<ErrorReply> checkPut(Bytes value, int ttlSeconds, Bytes binding, boolean owned,
                                                 NodeConfig config) {
        if (value.length() > config.valueBytesMax()) {
            return Optional.of(new ErrorReply(Status.TOO_LARGE, "value too large: " + value.length()
                    + " bytes, the limit is " + config.valueBytesMax()));
        }
        if (value.isEmpty() && !owned) {
            return bad("value is empty");
        }
        if (owned) {
            // An empty owned value is its owner's remove.
            return ttlSeconds != 0 || !binding.isEmpty() ? bad("an owned value's expiry is signed and its owner "
                    + "removes it: it carries no ttl and no secret") : Optional.empty();
        }
        if (ttlSeconds < 1 || ttlSeconds > config.ttlSecondsMax()) {
            return bad("ttl must be 1.." + config.ttlSecondsMax() + " seconds, got " + ttlSeconds);
        }
        if (!binding.isEmpty() && binding.length() != StoredRecord.HASH_BYTES) {
            return bad("binding must be 32 bytes (SHA-256 of secret, key and value hash) or absent");
        }
        return Optional.empty();
    }

    private static Optional<ErrorReply> bad(String detail) {
        return Optional.of(new ErrorReply(Status.BAD_REQUEST, detail));
    }
}
