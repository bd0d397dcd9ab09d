package io.rattan.core.node;

import io.rattan.core.client.GetOptions;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.ClientRemove;
import io.rattan.core.msg.Messages.PutRequest;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;

/** Checks a client request against the node's limits; the gateway answers bad input before routing anything. */
final class ClientRequestValidator {

    /** Prefix of the message for a value over the size limit, which maps to TOO_LARGE rather than BAD_REQUEST. */
    static final String TOO_LARGE = "value too large";
    static final int SECRET_BYTES_MAX = 1024;

    private ClientRequestValidator() {
    }

    /**
     * Null when valid, else a precise description of what is wrong. The get's options were checked when they were
     * made ({@link GetOptions}' constructor); here only how they combine with the request.
     */
    static String check(Message m, GetOptions options, NodeConfig config) {
        switch (m.type()) {
            case CLIENT_PUT: {
                ClientPut p = (ClientPut) m;
                return checkPut(p.value(), p.ttlSeconds(), p.binding(), config);
            }
            case CLIENT_GET: {
                ClientGet g = (ClientGet) m;
                // Larger pages are clamped to the node's page limit, not refused: the client cannot know it.
                if (g.maxValues() < 0) {
                    return "max values must be >= 0 (0 = the node's page limit)";
                }
                if (!g.placemark().isEmpty() && g.placemark().length() != StoredRecord.HASH_BYTES) {
                    return "placemark must be a 32-byte value hash or empty";
                }
                if (options.routing() == RoutingMode.ITERATIVE && options.maxCopies() > 1) {
                    // The other nodes would route their copies recursively: an iterative get runs where it started.
                    return "an iterative get runs at one gateway: use gateways=1, no hedge and no one-hop";
                }
                if (options.readReplicas() > config.replicas()) {
                    return "r must be 1.." + config.replicas() + " (the key's replicas; 0 or absent: "
                            + config.readQuorumDefault() + "), got " + options.readReplicas();
                }
                return null;
            }
            case CLIENT_REMOVE: {
                ClientRemove r = (ClientRemove) m;
                if (r.valueHash().length() != StoredRecord.HASH_BYTES) {
                    return "value hash must be 32 bytes (SHA-256 of the value)";
                }
                if (r.secret().isEmpty() || r.secret().length() > SECRET_BYTES_MAX) {
                    return "secret must be 1.." + SECRET_BYTES_MAX + " bytes";
                }
                if (r.ttlSeconds() < 0 || r.ttlSeconds() > config.ttlSecondsMax()) {
                    return "ttl must be 0.." + config.ttlSecondsMax() + " seconds (0 = the maximum)";
                }
                return null;
            }
            default:
                return "not a client request: " + m.type();
        }
    }

    /**
     * A put routed by a peer passes the same limits as a client's: a node checks it before routing it on or storing
     * it, whatever the gateway that started it did. And its expiry, set by the gateway's expiry clock, has not passed
     * by more than 2 S by this node's ({@code nowMillis}), the most two clocks within S of the true time differ: the
     * put spent its whole TTL on the way. (One too far ahead is capped where it is stored, LocalReplica#recordOf.)
     * Null when valid.
     */
    static String checkPeerPut(PutRequest p, NodeConfig config, long nowMillis) {
        String invalid = checkPut(p.value(), p.ttlSeconds(), p.binding(), config);
        if (invalid == null && p.expiresAtMillis() + ExpiryClock.SPREAD_BOUND_MILLIS <= nowMillis) {
            return "expired before it reached this node: its gateway set expiry " + p.expiresAtMillis()
                    + ", this node's clock reads " + nowMillis;
        }
        return invalid;
    }

    private static String checkPut(Bytes value, int ttlSeconds, Bytes binding, NodeConfig config) {
        if (value.length() > config.valueBytesMax()) {
            return TOO_LARGE + ": " + value.length() + " bytes, the limit is " + config.valueBytesMax();
        }
        if (value.isEmpty()) {
            return "value is empty";
        }
        if (ttlSeconds < 1 || ttlSeconds > config.ttlSecondsMax()) {
            return "ttl must be 1.." + config.ttlSecondsMax() + " seconds, got " + ttlSeconds;
        }
        if (!binding.isEmpty() && binding.length() != StoredRecord.HASH_BYTES) {
            return "binding must be 32 bytes (SHA-256 of secret, key and value hash) or absent";
        }
        return null;
    }
}
