package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.PutCondition;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The owner's writes of {@link RattanClient} (put, compare-and-swap, remove): each is signed here with the owner's
 * key, which never leaves this process, and sent as an owned {@link ClientPut}; a remove is one with no data, signed
 * as {@link SignedOp#REMOVE}.
 */
final class OwnedCalls {

    private final ClientRuntime runtime;
    private final Delivery delivery;
    private final Scope scope;

    OwnedCalls(ClientRuntime runtime, Delivery delivery, Scope scope) {
        this.runtime = runtime;
        this.scope = scope;
        this.delivery = delivery;
    }

    /**
     * Signs and sends {@code op}'s write of {@code value} (empty for a remove) as {@code owner}'s value
     * {@code valueId}, version {@code seq}, until {@code expiresAt}; {@code answer} reads the reply.
     *
     * @throws IllegalArgumentException for a null argument or an expiry before 1970
     */
    <T> CompletableFuture<T> send(Op op, Id key, Bytes value, OwnerKey owner, long valueId, long seq,
                                  Instant expiresAt, PutCondition condition, Call.ReplyMapper<T> answer) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        long expiresAtSeconds = Objects.requireNonNull(expiresAt, "expiresAt").getEpochSecond();
        if (expiresAtSeconds < 0) {
            throw new IllegalArgumentException("expiresAt must not be before 1970, got " + expiresAt);
        }
        long start = System.nanoTime();
        if (value.length() > RattanClient.VALUE_BYTES_MAX) {
            return delivery.tooLarge(op, start, value.length());
        }
        SignedOp signed = op == Op.REMOVE ? SignedOp.REMOVE : SignedOp.PUT;
        OwnerStamp stamp = owner.sign(scope.name(), signed, key, valueId, seq, expiresAtSeconds, value.sha256());
        ClientPut request = new ClientPut(key, value, 0, Bytes.EMPTY, stamp, condition);
        return delivery.toCaller(op, start, runtime.submit(op, scope.wrap(request), runtime.deadline(start), answer));
    }
}
