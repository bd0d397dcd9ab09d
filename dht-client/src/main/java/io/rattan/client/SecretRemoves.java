package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.SecretBinding;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The removes of values put with a secret ({@link RattanClient#remove}, {@link RattanClient#removeLegacy}): each
 * sends the value's remove proof, derived here from the secret, which never leaves this process; or, for a value that
 * a client of before remove proofs (7 December 2026) bound to the secret itself, the secret, as that client did.
 */
final class SecretRemoves {

    private final ClientRuntime runtime;
    private final Delivery delivery;
    private final Scope scope;

    SecretRemoves(ClientRuntime runtime, Delivery delivery, Scope scope) {
        this.runtime = runtime;
        this.delivery = delivery;
        this.scope = scope;
    }

    /**
     * Sends the remove; {@code legacy}: the secret itself, not the proof.
     *
     * @throws IllegalArgumentException as {@link RattanClient#remove} says
     */
    CompletableFuture<Boolean> remove(Id key, Bytes valueHash, byte[] secret, Duration ttl, boolean legacy) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(valueHash, "valueHash");
        Objects.requireNonNull(secret, "secret");
        Arguments.checkValueHash(valueHash);
        Arguments.checkSecret(secret);
        int ttlSeconds = Arguments.ttlSeconds(ttl);
        long start = System.nanoTime();
        Bytes sent = legacy ? Bytes.of(secret) : SecretBinding.proof(Bytes.of(secret), key, valueHash);
        ClientRemove request = new ClientRemove(key, valueHash, sent, ttlSeconds);
        return delivery.toCaller(Op.REMOVE, start,
                runtime.submit(Op.REMOVE, scope.wrap(request), runtime.deadline(start),
                        reply -> Replies.remove(reply, !scope.isDefault())),
                removed -> removed ? ClientMetrics.SUCCESS : "not_found");
    }
}
