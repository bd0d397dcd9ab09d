package io.rattan.node.gateway.permanent;

import io.rattan.api.Bytes;
import io.rattan.api.Id;

/**
 * One value a gateway keeps alive: the put it repeats. The secret never reaches the gateway's list, only its
 * {@code binding} to the value, which is what the put carries and what a remove's secret is checked against.
 *
 * @param key        the key
 * @param value      the value's bytes
 * @param ttlSeconds the TTL each put gives it; it is put again after half of it
 * @param binding    SHA-256(secret ‖ key ‖ valueHash), see {@link io.rattan.core.msg.SecretBinding}
 */
record KeptValue(Id key, Bytes value, int ttlSeconds, Bytes binding) {

    /** The value's hash, its identity under the key. */
    Bytes valueHash() {
        return value.sha256();
    }

    /** The name of its file in the list's directory: the key and the value's hash, in hex. */
    String fileName() {
        return fileName(key, valueHash());
    }

    static String fileName(Id key, Bytes valueHash) {
        return key.toHex() + "-" + valueHash.toHex() + PermanentList.SUFFIX;
    }
}
