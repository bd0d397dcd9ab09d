package io.rattan.node.gateway.http;

import static io.rattan.node.gateway.http.Problems.failure;
import static io.rattan.node.gateway.http.Problems.unexpected;
import static io.rattan.node.gateway.http.QueryParams.booleanParam;
import static io.rattan.node.gateway.http.QueryParams.getOptions;
import static io.rattan.node.gateway.http.QueryParams.intParam;
import static io.rattan.node.gateway.http.QueryParams.placemark;
import static io.rattan.node.gateway.http.QueryParams.ttl;
import static io.rattan.node.gateway.http.Rejected.badRequest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.Status;
import io.rattan.core.client.KeepAlive;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.permanent.PermanentValues;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code /v1/keys/{key}} (GET a page of values, POST a value), {@code /v1/keys/{key}/{valueHash}} (DELETE) and
 * {@code /v1/keys/{key}/owned/{owner}/{valueId}} (DELETE, the owner's remove), and the same under
 * {@code /v1/namespaces/{ns}/keys}: checks the request against the limits of its namespace ({@link Scope}: the
 * node's own {@link NodeConfig} for the default one), turns it into a client message for the
 * {@link GatewayBackend}, and the reply into JSON or a problem. A malformed key, TTL, page size or placemark is a
 * 400, a value over {@code valueBytesMax} a 413. Any thread; the futures complete on the thread that completed the
 * backend's future.
 */
final class KeysResource {

    /** TTL of a put that names none (capped by the node's maximum). */
    static final int TTL_SECONDS_DEFAULT = 3600;
    /**
     * The header that carries a value's secret, at put and at remove; turned into the value's remove proof (its
     * binding at put) before anything leaves the gateway.
     */
    static final String SECRET_HEADER = "Rattan-Secret";
    /** Longest secret accepted, in bytes; the same bound at put and at remove so every secret set can be shown. */
    static final int SECRET_BYTES_MAX = 1024;

    private final GatewayBackend backend;
    private final ClientGuard guard;
    /** The values this gateway keeps alive; null when it keeps none. */
    private final PermanentValues permanent;

    KeysResource(GatewayBackend backend, ClientGuard guard, PermanentValues permanent) {
        this.backend = backend;
        this.guard = guard;
        this.permanent = permanent;
    }

    CompletableFuture<ApiResponse> put(Scope scope, String keySegment, Map<String, List<String>> query,
                                       ApiRequest request) throws Rejected {
        NodeConfig config = scope.config();
        Id key = key(keySegment);
        OwnerStamp stamp = OwnerHeaders.stamp(request.owner());
        PutCondition condition = OwnerHeaders.condition(request.owner());
        if (stamp == null && !condition.isNone()) {
            throw badRequest("If-Match and If-None-Match apply to owned values: send the owner's headers too");
        }
        if (stamp != null && (query.containsKey("ttl") || !request.secrets().isEmpty())) {
            throw badRequest("an owned value's expiry is signed (" + OwnerHeaders.EXPIRES + ") and its owner removes "
                    + "it: send no ?ttl and no " + SECRET_HEADER);
        }
        int ttlSeconds = stamp != null ? 0
                : ttl(query, Math.min(TTL_SECONDS_DEFAULT, config.ttlSecondsMax()), config.ttlSecondsMax());
        boolean keep = booleanParam(query, "permanent", false);
        if (keep) {
            checkPermanent(scope, stamp, ttlSeconds, request);
        }
        Bytes value = request.body();
        if (value.isEmpty()) {
            throw badRequest("the value is empty: send its bytes as the request body");
        }
        if (value.length() > config.valueBytesMax()) {
            throw new Rejected(Problems.tooLarge("the value has " + value.length()
                    + " bytes; " + scope.holder() + " accepts at most " + config.valueBytesMax()));
        }
        Bytes secret = secret(request);
        if (secret != null && secret.isEmpty()) {
            throw badRequest(SECRET_HEADER + " is empty; send a secret, or no header for a value nobody can remove");
        }
        Bytes valueHash = value.sha256();
        // The secret stops here: the put carries the binding of the value's remove proof, which opens nothing.
        Bytes binding = secret == null ? Bytes.EMPTY : SecretBinding.bindingFor(secret, key, valueHash);
        ClientPut message = new ClientPut(key, value, ttlSeconds, binding, stamp, condition);
        CompletableFuture<ApiResponse> stored = ask(guarded(request, scope, message), reply -> {
            if (!(reply instanceof PutReply)) {
                return unexpected(reply);
            }
            PutReply put = (PutReply) reply;
            if (stamp != null || put.status() != Status.OK) {
                return ownedAnswer(put, 201, key, stamp, body -> body.put("valueHash", valueHash.toHex()));
            }
            ObjectNode body = Json.object();
            body.put("key", key.toHex());
            body.put("valueHash", valueHash.toHex());
            body.put("ttlSeconds", ttlSeconds);
            body.put("replicas", put.replicas());
            if (keep) {
                body.put("permanent", true);
            }
            return ApiResponse.json(201, Json.bytes(body))
                    .withHeader("Location", scope.keysPath() + key.toHex() + "/" + valueHash.toHex());
        });
        // Kept only once stored: a put that failed leaves nothing to keep alive.
        return !keep ? stored : stored.thenCompose(r -> r.status() != 201 ? CompletableFuture.completedFuture(r)
                : permanent.keep(key, value, ttlSeconds, binding).handle((ok, e) -> e == null ? r : notKept(e)));
    }

    /**
     * Refuses a {@code ?permanent=true} put this gateway cannot keep: an owned value (only its owner can sign a new
     * expiry), one without a secret (nothing could ever end it), a TTL too short to re-put within, a full list.
     */
    private void checkPermanent(Scope scope, OwnerStamp stamp, int ttlSeconds, ApiRequest request)
            throws Rejected {
        if (stamp != null) {
            throw badRequest("an owned value's expiry is signed: only its owner can keep it alive (the Java client's "
                    + "putPermanent, or 'rattan put --permanent'); send no ?permanent");
        }
        if (permanent == null) {
            throw badRequest("this port keeps no permanent values; put through a node's HTTP gateway");
        }
        if (!isDefault(scope)) {
            // The gateway's list re-puts under /v1/keys: a value of another namespace would be kept in the wrong one.
            throw badRequest("a gateway keeps permanent values of the default namespace only (/v1/keys); in "
                    + scope.holder() + " keep it alive from the client (the Java client's putPermanent)");
        }
        if (request.secrets().isEmpty()) {
            throw badRequest("a permanent value is kept until it is removed with its secret: send "
                    + SECRET_HEADER);
        }
        if (ttlSeconds < KeepAlive.TTL_SECONDS_MIN) {
            throw badRequest("a permanent value is put again every half TTL: its ttl must be at least "
                    + KeepAlive.TTL_SECONDS_MIN + " seconds, got " + ttlSeconds);
        }
        if (!permanent.hasRoom(ttlSeconds)) {
            throw new Rejected(permanentListFull());
        }
    }

    /** The answer to a put stored for its TTL that this gateway could not keep alive. */
    private static ApiResponse notKept(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        String stored = "the value is stored for its TTL, but this gateway does not keep it alive: ";
        if (cause instanceof PermanentValues.ListFull) {
            return Problems.problem(507, "permanent-list-full", "Insufficient storage", stored + cause.getMessage());
        }
        if (cause instanceof PermanentValues.KeptUnderAnotherSecret) {
            return Problems.problem(409, "conflict", "Conflict", stored + cause.getMessage());
        }
        return Problems.unavailable(stored + cause.getMessage());
    }

    private static ApiResponse permanentListFull() {
        return Problems.problem(507, "permanent-list-full", "Insufficient storage", "this gateway keeps at most "
                + PermanentValues.VALUES_MAX + " permanent values, costing at most "
                + (int) PermanentValues.PUTS_PER_SECOND_MAX + " puts per second together (a value of TTL t costs 2/t)"
                + "; remove one, give a longer ttl, or put through another gateway");
    }

    /**
     * The owner's remove of its value {@code valueIdSegment} under a key: a signed op 2 (sequence, expiry and
     * signature in the headers, owner and value id in the path) that the root writes as a tombstone.
     */
    CompletableFuture<ApiResponse> removeOwned(Scope scope, String keySegment, String ownerSegment,
                                               String valueIdSegment, Map<String, List<String>> query,
                                               ApiRequest request) throws Rejected {
        Id key = key(keySegment);
        OwnerStamp stamp = OwnerHeaders.removeStamp(PathSegments.decode(ownerSegment),
                PathSegments.decode(valueIdSegment), request.owner());
        if (query.containsKey("ttl") || !request.secrets().isEmpty()) {
            throw badRequest("an owner's remove is signed: its tombstone lives until " + OwnerHeaders.EXPIRES
                    + "; send no ?ttl and no " + SECRET_HEADER);
        }
        ClientPut message = new ClientPut(key, Bytes.EMPTY, 0, Bytes.EMPTY, stamp,
                OwnerHeaders.condition(request.owner()));
        return ask(guarded(request, scope, message), reply -> reply instanceof PutReply put
                ? ownedAnswer(put, 200, key, stamp, body -> body.put("removed", true)) : unexpected(reply));
    }

    /**
     * How a put reaches the node in its namespace: through the client guard's limits when the client is known
     * (its token, or its address), which count the bare put (its bytes and TTL), whatever namespace it is stored in.
     */
    private Supplier<CompletableFuture<Message>> guarded(ApiRequest request, Scope scope, ClientPut message) {
        Message wrapped = scope.wrap(message);
        return request.principal() == null
                ? () -> backend.request(wrapped)
                : () -> guard.put(request.principal(), message, () -> backend.request(wrapped));
    }

    private static boolean isDefault(Scope scope) {
        return NamespaceDefinition.DEFAULT.equals(scope.namespace());
    }

    /**
     * The answer to an owned write or a failed put: a refusal as a problem (409 and 412 with the sequence held), or
     * {@code status} with the stamp's fields, the replica count and the sequence as the ETag.
     */
    private static ApiResponse ownedAnswer(PutReply put, int status, Id key, OwnerStamp stamp,
                                           Consumer<ObjectNode> more) {
        if (put.status() == Status.CONFLICT || put.status() == Status.PRECONDITION_FAILED) {
            return Problems.ownedRefusal(put.status(), put.detail(), put.currentSeq());
        }
        if (put.status() != Status.OK) {
            return Problems.forStatus(put.status(), put.detail());
        }
        ObjectNode body = Json.object();
        body.put("key", key.toHex());
        more.accept(body);
        OwnerHeaders.describe(body, stamp);
        body.put("replicas", put.replicas());
        return ApiResponse.json(status, Json.bytes(body))
                .withHeader("ETag", "\"" + Long.toUnsignedString(stamp.seq()) + "\"");
    }

    CompletableFuture<ApiResponse> get(Scope scope, String keySegment, Map<String, List<String>> query)
            throws Rejected {
        NodeConfig config = scope.config();
        Id key = key(keySegment);
        int max = intParam(query, "max", config.pageValuesMax(), 1, config.pageValuesMax(), "values");
        Bytes placemark = placemark(query);
        GetOptions options = getOptions(query, config.replicas(), scope.routing());
        ClientGet request = ClientGet.of(key, options).page(max, placemark);
        return ask(scope.wrap(request), reply -> {
            if (!(reply instanceof GetReply)) {
                return unexpected(reply);
            }
            GetReply get = (GetReply) reply;
            // No live value is an empty list, not a 404: the key exists as soon as anyone names it. A partial quorum
            // get is an answer too, flagged in its body.
            if (get.status() != Status.OK && get.status() != Status.NOT_FOUND && get.status() != Status.PARTIAL) {
                return Problems.forStatus(get.status(), get.detail());
            }
            ObjectNode body = Json.object();
            body.put("key", key.toHex());
            ArrayNode values = body.putArray("values");
            for (ValueEntry entry : get.values()) {
                describeValue(values.addObject(), entry, entry.value().sha256());
            }
            if (get.placemark() == null || get.placemark().isEmpty()) {
                body.putNull("placemark");
            } else {
                body.put("placemark", get.placemark().toHex());
            }
            ObjectNode cost = body.putObject("cost");
            cost.put("hops", get.hops());
            // What the nodes on the winning copy's path counted in band (see Cost): not other copies, not probes.
            cost.put("messages", get.cost().messages());
            cost.put("bytes", get.cost().bytes());
            if (options.quorum()) {
                ObjectNode quorum = body.putObject("quorum");
                quorum.put("r", options.readReplicas() > 0 ? options.readReplicas() : config.readQuorumDefault());
                quorum.put("replicas", get.replicasRead());
                quorum.put("partial", get.status() == Status.PARTIAL);
            }
            return ApiResponse.json(200, Json.bytes(body));
        });
    }

    CompletableFuture<ApiResponse> remove(Scope scope, String keySegment, String hashSegment,
                                          Map<String, List<String>> query, ApiRequest request) throws Rejected {
        NodeConfig config = scope.config();
        Id key = key(keySegment);
        Bytes valueHash;
        try {
            valueHash = KeyParser.parseValueHash(PathSegments.decode(hashSegment));
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
        int ttlSeconds = ttl(query, config.ttlSecondsMax(), config.ttlSecondsMax());
        Bytes secret = secret(request);
        if (secret == null || secret.isEmpty()) {
            throw new Rejected(Problems.forbidden("a secret is required: send the value's secret in the "
                    + SECRET_HEADER + " header"));
        }
        // The secret stops here too: the remove carries the value's proof, which opens this value only. A value put
        // before proofs (7 December 2026) is bound to the secret itself, which only its owner may choose to send.
        boolean legacy = booleanParam(query, "legacySecret", false);
        Bytes proof = legacy ? secret : SecretBinding.proof(secret, key, valueHash);
        Message asked = scope.wrap(new ClientRemove(key, valueHash, proof, ttlSeconds));
        CompletableFuture<ApiResponse> removed = ask(asked, reply -> reply instanceof RemoveReply r
                ? removeAnswer(r, key, valueHash, legacy) : unexpected(reply));
        // Whatever the replicas answered, a secret that opens this gateway's binding ends the keeping: the value held
        // there may carry another binding (the same bytes put first by someone else), which no remove of ours opens.
        return permanent == null || !isDefault(scope) ? removed
                : removed.thenCompose(r -> permanent.cancel(key, valueHash, proof).handle((dropped, e) -> r));
    }

    /** The response to a remove's reply; a refusal of a proof hints at values bound before proofs. */
    private static ApiResponse removeAnswer(RemoveReply remove, Id key, Bytes valueHash, boolean legacy) {
        boolean noDetail = remove.detail() == null || remove.detail().isBlank();
        if (remove.status() == Status.OK) {
            return ApiResponse.noContent();
        }
        if (remove.status() == Status.NOT_FOUND && noDetail) {
            return Problems.notFound("no value with hash " + valueHash.toHex() + " under key " + key.toHex());
        }
        if (remove.status() == Status.FORBIDDEN && noDetail && !legacy) {
            return Problems.forbidden("the secret does not match the one the value was put with (or the value was put "
                    + "without one); a value put with this secret before 7 December 2026 is removed with "
                    + "?legacySecret=true");
        }
        return Problems.forStatus(remove.status(), remove.detail());
    }

    private CompletableFuture<ApiResponse> ask(Message request, Function<Message, ApiResponse> onReply) {
        return ask(() -> backend.request(request), onReply);
    }

    /** Sends, and turns the reply (or an error reply, or a failure) into the response. */
    private static CompletableFuture<ApiResponse> ask(Supplier<CompletableFuture<Message>> send,
                                                      Function<Message, ApiResponse> onReply) {
        CompletableFuture<Message> reply;
        try {
            reply = send.get();
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(failure(e));
        }
        return reply.handle((message, error) -> {
            if (error != null) {
                return failure(error);
            }
            if (message instanceof ErrorReply) {
                return Problems.forError((ErrorReply) message);
            }
            return onReply.apply(message);
        });
    }

    static Id key(String segment) throws Rejected {
        try {
            return KeyParser.parseKey(PathSegments.decode(segment));
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
    }

    /**
     * The secret's bytes, empty when the header is empty, or null when none was sent. Netty reads header bytes one
     * char each (ISO-8859-1), so encoding back to ISO-8859-1 restores exactly the bytes the client sent: for a UTF-8
     * client, the UTF-8 bytes of the text it meant.
     */
    private static Bytes secret(ApiRequest request) throws Rejected {
        List<String> secrets = request.secrets();
        if (secrets.isEmpty()) {
            return null;
        }
        if (secrets.size() > 1) {
            throw badRequest(SECRET_HEADER + " is given " + secrets.size() + " times; give it once");
        }
        byte[] bytes = secrets.get(0).getBytes(StandardCharsets.ISO_8859_1);
        if (bytes.length > SECRET_BYTES_MAX) {
            throw badRequest(SECRET_HEADER + " is at most " + SECRET_BYTES_MAX + " bytes, got " + bytes.length);
        }
        return Bytes.wrap(bytes);
    }

    /**
     * One value as a get lists it, and a watch's {@code value} event carries it ({@link SseEvents}): its bytes in
     * base64, {@code valueHash}, the whole seconds it has left, and its owner's fields when it is owned.
     */
    static void describeValue(ObjectNode v, ValueEntry entry, Bytes valueHash) {
        v.put("value", Base64.getEncoder().encodeToString(entry.value().toByteArray()));
        v.put("valueHash", valueHash.toHex());
        v.put("ttlRemainingSeconds", ceilSeconds(entry.ttlRemainingMillis()));
        if (entry.stamp() != null) {
            OwnerHeaders.describe(v, entry.stamp());
        }
    }

    private static long ceilSeconds(long millis) {
        return millis <= 0 ? 0 : (millis + 999) / 1000;
    }
}
