package io.rattan.node.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Consistency;
import io.rattan.core.msg.GetOptions;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.ClientRemove;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Messages.RemoveReply;
import io.rattan.core.msg.Messages.ValueEntry;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API of DESIGN.md: validates a request, turns it into a client message for the {@link GatewayBackend}, and
 * turns the reply into JSON or a problem. Knows nothing of Netty's channels, so it can be driven from any thread;
 * the futures it returns complete on whatever thread completed the backend's future.
 *
 * <p>Input is checked here, before it reaches the node, against the node's own limits ({@link NodeConfig}): a
 * malformed key, TTL, page size or placemark is a 400, a value over {@code valueBytesMax} a 413.
 */
final class ApiRouter {

    /** TTL of a put that names none (capped by the node's maximum). */
    static final int TTL_SECONDS_DEFAULT = 3600;
    /**
     * The header that carries a value's secret, at put (turned into its binding to the value before anything leaves
     * the gateway) and at remove.
     */
    static final String SECRET_HEADER = "Rattan-Secret";
    /** Longest secret accepted, in bytes; the same bound at put and at remove so every secret set can be shown. */
    static final int SECRET_BYTES_MAX = 1024;
    /** Longest placemark accepted, in hex digits; a placemark is an opaque position a node handed out. */
    static final int PLACEMARK_DIGITS_MAX = 512;

    private static final Logger LOG = LoggerFactory.getLogger(ApiRouter.class);
    private static final String GET = "GET";
    private static final String POST = "POST";
    private static final String DELETE = "DELETE";

    private final GatewayBackend backend;
    private final ClientGuard guard;
    private final NodeConfig config;

    ApiRouter(GatewayBackend backend, ClientGuard guard) {
        this.backend = backend;
        this.guard = guard;
        this.config = backend.config();
    }

    CompletableFuture<ApiResponse> route(ApiRequest request) {
        if (request.isMalformed()) {
            return done(Problems.badRequest("malformed HTTP request: " + request.malformed()).closing());
        }
        QueryStringDecoder target = new QueryStringDecoder(request.uri());
        String path = target.rawPath();
        Map<String, List<String>> query;
        try {
            query = target.parameters();
        } catch (IllegalArgumentException e) {
            return done(Problems.badRequest("the query string is not valid percent-encoding: " + e.getMessage()));
        }
        if (!path.startsWith("/")) {
            return done(Problems.unknownPath(path));
        }
        String[] segments = path.substring(1).split("/", -1);
        String method = request.method();
        try {
            if (segments.length == 1) {
                switch (segments[0]) {
                    case "health":
                        requireMethod(method, GET);
                        return done(health());
                    case "ready":
                        requireMethod(method, GET);
                        return ready();
                    case "node":
                        requireMethod(method, GET);
                        return node();
                    case "metrics":
                        requireMethod(method, GET);
                        return done(metrics());
                    default:
                        return done(Problems.unknownPath(path));
                }
            }
            if (segments.length == 2 && segments[0].equals("admin") && segments[1].equals("records")) {
                requireMethod(method, GET);
                // The listing names every key this node holds: operators ask from the node's own host only.
                if (request.client() == null || !request.client().isLoopbackAddress()) {
                    return done(Problems.forbidden("/admin/records answers callers on this node's own host only"));
                }
                return localRecords();
            }
            if (segments.length >= 3 && segments[0].equals("v1") && segments[1].equals("keys")) {
                if (segments.length == 3) {
                    requireMethod(method, GET, POST);
                    return method.equals(GET)
                            ? get(segments[2], query)
                            : put(segments[2], query, request);
                }
                if (segments.length == 4) {
                    requireMethod(method, DELETE);
                    return remove(segments[2], segments[3], query, request);
                }
            }
            return done(Problems.unknownPath(path));
        } catch (Rejected r) {
            return done(r.response);
        }
    }

    // ---- keys

    private CompletableFuture<ApiResponse> put(String keySegment, Map<String, List<String>> query,
                                               ApiRequest request) throws Rejected {
        Id key = key(keySegment);
        int ttlSeconds = ttl(query, Math.min(TTL_SECONDS_DEFAULT, config.ttlSecondsMax()));
        Bytes value = request.body();
        if (value.isEmpty()) {
            throw badRequest("the value is empty: send its bytes as the request body");
        }
        if (value.length() > config.valueBytesMax()) {
            throw new Rejected(Problems.tooLarge("the value has " + value.length()
                    + " bytes; this node accepts at most " + config.valueBytesMax()));
        }
        Bytes secret = secret(request);
        if (secret != null && secret.isEmpty()) {
            throw badRequest(SECRET_HEADER + " is empty; send a secret, or no header for a value nobody can remove");
        }
        Bytes valueHash = value.sha256();
        // The secret stops here: the put carries only its binding to this value, which opens nothing.
        Bytes binding = secret == null ? Bytes.EMPTY : SecretBinding.of(secret, key, valueHash);
        ClientPut message = new ClientPut(key, value, ttlSeconds, binding);
        Supplier<CompletableFuture<Message>> send = request.client() == null
                ? () -> backend.request(message)
                : () -> guard.put(request.client(), message, () -> backend.request(message));
        return ask(send, reply -> {
            if (!(reply instanceof PutReply)) {
                return unexpected(reply);
            }
            PutReply put = (PutReply) reply;
            if (put.status() != Status.OK) {
                return Problems.forStatus(put.status(), put.detail());
            }
            ObjectNode body = Json.object();
            body.put("key", key.toHex());
            body.put("valueHash", valueHash.toHex());
            body.put("ttlSeconds", ttlSeconds);
            body.put("replicas", put.replicas());
            return ApiResponse.json(201, Json.bytes(body))
                    .withHeader("Location", "/v1/keys/" + key.toHex() + "/" + valueHash.toHex());
        });
    }

    private CompletableFuture<ApiResponse> get(String keySegment, Map<String, List<String>> query) throws Rejected {
        Id key = key(keySegment);
        int max = intParam(query, "max", config.pageValuesMax(), 1, config.pageValuesMax(), "values");
        Bytes placemark = placemark(query);
        GetOptions options = getOptions(query, config.replicas());
        ClientGet request = ClientGet.of(key, options).page(max, placemark);
        return ask(() -> backend.request(request), reply -> {
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
                ObjectNode v = values.addObject();
                v.put("value", Base64.getEncoder().encodeToString(entry.value().toByteArray()));
                v.put("valueHash", entry.value().sha256().toHex());
                v.put("ttlRemainingSeconds", ceilSeconds(entry.ttlRemainingMillis()));
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

    private CompletableFuture<ApiResponse> remove(String keySegment, String hashSegment,
                                                  Map<String, List<String>> query, ApiRequest request)
            throws Rejected {
        Id key = key(keySegment);
        Bytes valueHash;
        try {
            valueHash = KeyParser.parseValueHash(decodeSegment(hashSegment));
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
        int ttlSeconds = ttl(query, config.ttlSecondsMax());
        Bytes secret = secret(request);
        if (secret == null || secret.isEmpty()) {
            throw new Rejected(Problems.forbidden("a secret is required: send the value's secret in the "
                    + SECRET_HEADER + " header"));
        }
        return ask(new ClientRemove(key, valueHash, secret, ttlSeconds), reply -> {
            if (!(reply instanceof RemoveReply)) {
                return unexpected(reply);
            }
            RemoveReply remove = (RemoveReply) reply;
            if (remove.status() == Status.OK) {
                return ApiResponse.noContent();
            }
            if (remove.status() == Status.NOT_FOUND && (remove.detail() == null || remove.detail().isBlank())) {
                return Problems.notFound("no value with hash " + valueHash.toHex() + " under key " + key.toHex());
            }
            return Problems.forStatus(remove.status(), remove.detail());
        });
    }

    // ---- operations

    private static ApiResponse health() {
        ObjectNode body = Json.object();
        body.put("status", "serving");
        return ApiResponse.json(200, Json.bytes(body));
    }

    private CompletableFuture<ApiResponse> ready() {
        return status(status -> {
            if (!status.joined()) {
                return Problems.notReady("the node has not joined the overlay yet");
            }
            Optional<String> fault = backend.storageFault();
            if (fault.isPresent()) {
                return Problems.notReady("the node's store is in a storage fault (" + fault.get() + "); it recovers "
                        + "by itself once the fault clears (e.g. disk space returns)");
            }
            if (!status.ready()) {
                return Problems.notReady("the node has joined but has not yet heard from its nearest neighbours");
            }
            ObjectNode body = Json.object();
            body.put("status", "ready");
            return ApiResponse.json(200, Json.bytes(body));
        });
    }

    /** {@code GET /admin/records}: this node's own store, listed (key, value hash, tombstone) for copy counting. */
    private CompletableFuture<ApiResponse> localRecords() {
        return backend.localRecords().handle((records, failure) -> {
            if (failure != null) {
                return Problems.unavailable("cannot list the local store: " + failure.getMessage());
            }
            ObjectNode body = Json.object();
            body.put("count", records.size());
            ArrayNode list = body.putArray("records");
            for (StoredRecord r : records) {
                ObjectNode o = list.addObject();
                o.put("key", r.key().toHex());
                o.put("valueHash", r.valueHash().toHex());
                o.put("tombstone", r.tombstone());
            }
            return ApiResponse.json(200, Json.bytes(body));
        });
    }

    private CompletableFuture<ApiResponse> node() {
        return status(status -> {
            ObjectNode body = Json.object();
            body.put("id", status.self().id().toHex());
            body.put("address", status.self().address().toString());
            body.put("joined", status.joined());
            body.put("ready", status.ready());
            ArrayNode leafSet = body.putArray("leafSet");
            for (Contact c : status.leafSet()) {
                ObjectNode leaf = leafSet.addObject();
                leaf.put("id", c.id().toHex());
                leaf.put("address", c.address().toString());
            }
            ArrayNode rows = body.putArray("routingRowFill");
            for (int fill : status.routingRowFill()) {
                rows.add(fill);
            }
            body.put("routingEntries", status.routingEntries());
            body.put("storedRecords", status.storedRecords());
            return ApiResponse.json(200, Json.bytes(body));
        });
    }

    private ApiResponse metrics() {
        String text = backend.scrapeMetrics();
        return new ApiResponse(200, ApiResponse.PROMETHEUS_TEXT, Bytes.utf8(text), Map.of(), false);
    }

    // ---- talking to the node

    private CompletableFuture<ApiResponse> ask(Message request, Function<Message, ApiResponse> onReply) {
        return ask(() -> backend.request(request), onReply);
    }

    private static CompletableFuture<ApiResponse> ask(Supplier<CompletableFuture<Message>> send,
                                                      Function<Message, ApiResponse> onReply) {
        CompletableFuture<Message> reply;
        try {
            reply = send.get();
        } catch (RuntimeException e) {
            return done(failure(e));
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

    private CompletableFuture<ApiResponse> status(Function<NodeStatus, ApiResponse> onStatus) {
        CompletableFuture<NodeStatus> status;
        try {
            status = backend.status();
        } catch (RuntimeException e) {
            return done(failure(e));
        }
        return status.handle((s, error) -> error != null ? failure(error) : onStatus.apply(s));
    }

    private static ApiResponse failure(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof RejectedExecutionException) {
            return Problems.unavailable("the node is shutting down");
        }
        if (cause instanceof TimeoutException) {
            return Problems.timeout("the node did not answer in time");
        }
        LOG.warn("gateway backend failed", cause);
        return Problems.internal("the node failed to serve the request");
    }

    private static ApiResponse unexpected(Message reply) {
        LOG.error("gateway backend answered with an unexpected message: {}", reply == null ? null : reply.type());
        return Problems.internal("the node answered with an unexpected message");
    }

    // ---- input

    private static void requireMethod(String method, String... allowed) throws Rejected {
        for (String m : allowed) {
            if (m.equals(method)) {
                return;
            }
        }
        throw new Rejected(Problems.methodNotAllowed(method, String.join(", ", allowed)));
    }

    private static Id key(String segment) throws Rejected {
        try {
            return KeyParser.parseKey(decodeSegment(segment));
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
    }

    private int ttl(Map<String, List<String>> query, int fallback) throws Rejected {
        return intParam(query, "ttl", fallback, 1, config.ttlSecondsMax(), "seconds");
    }

    private static int intParam(Map<String, List<String>> query, String name, int fallback, int min, int max,
                                String unit) throws Rejected {
        String text = singleParam(query, name);
        if (text == null) {
            return fallback;
        }
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw badRequest(name + " must be a whole number of " + unit + " from " + min + " to " + max + ", got "
                    + KeyParser.quote(text));
        }
        if (v < min) {
            throw badRequest(name + " must be at least " + min + ", got " + v);
        }
        if (v > max) {
            throw badRequest(name + " must be at most " + max + " " + unit + ", got " + v);
        }
        return (int) v;
    }

    /**
     * How a get runs: {@code routing=greedy|delay-aware|iterative}, {@code p=1..16} (iterative only),
     * {@code gateways=1..8}, {@code hedge=true|false}, {@code onehop=true|false}, {@code consistency=one|quorum},
     * {@code r=1..k} (quorum only; {@code replicasMax} is k). Absent ones take {@link GetOptions#defaults()}, except
     * that an iterative get is not hedged: it runs at this gateway alone (the node would route other copies
     * recursively).
     */
    private static GetOptions getOptions(Map<String, List<String>> query, int replicasMax) throws Rejected {
        GetOptions defaults = GetOptions.defaults();
        RoutingMode routing = routing(query, defaults.routing());
        boolean iterative = routing == RoutingMode.ITERATIVE;
        String p = singleParam(query, "p");
        int parallelism = intParam(query, "p", 0, 1, GetOptions.PARALLELISM_MAX, "requests in flight");
        if (p != null && !iterative) {
            throw badRequest("p is the parallelism of an iterative get: use it with routing=iterative");
        }
        int gateways = intParam(query, "gateways", defaults.gateways(), 1, GetOptions.GATEWAYS_MAX, "nodes");
        boolean hedge = booleanParam(query, "hedge", defaults.hedge() && !iterative);
        boolean oneHop = booleanParam(query, "onehop", defaults.oneHop());
        if (iterative && (gateways > 1 || hedge || oneHop)) {
            // The other nodes would route their copies recursively; an iterative get runs where it started.
            throw badRequest("an iterative get runs at this gateway alone: gateways must be 1, hedge and onehop "
                    + "false, got gateways=" + gateways + ", hedge=" + hedge + " and onehop=" + oneHop);
        }
        Consistency consistency = consistency(query);
        String r = singleParam(query, "r");
        int readReplicas = intParam(query, "r", 0, 1, Math.min(replicasMax, GetOptions.READ_REPLICAS_MAX),
                "replicas");
        if (r != null && consistency != Consistency.QUORUM) {
            throw badRequest("r is how many replicas a quorum get reads: use it with consistency=quorum");
        }
        if (consistency == Consistency.QUORUM && iterative) {
            throw badRequest("a quorum get is routed to a replica that reads the others: it cannot be iterative");
        }
        return GetOptions.builder().routing(routing).parallelism(parallelism).gateways(gateways).hedge(hedge)
                .oneHop(oneHop).consistency(consistency, readReplicas).build();
    }

    /** {@code consistency=one|quorum}, any case; absent: one. */
    private static Consistency consistency(Map<String, List<String>> query) throws Rejected {
        String text = singleParam(query, "consistency");
        if (text == null) {
            return Consistency.ONE;
        }
        try {
            return Consistency.parse(text);
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
    }

    /** {@code name=true|false}, any case; absent: {@code fallback}. */
    private static boolean booleanParam(Map<String, List<String>> query, String name, boolean fallback)
            throws Rejected {
        String text = singleParam(query, name);
        if (text == null) {
            return fallback;
        }
        if (text.equalsIgnoreCase("true")) {
            return true;
        }
        if (text.equalsIgnoreCase("false")) {
            return false;
        }
        throw badRequest(name + " must be true or false, got " + KeyParser.quote(text));
    }

    /** {@code routing=greedy|delay-aware|iterative}, any case; absent: {@code fallback}. */
    private static RoutingMode routing(Map<String, List<String>> query, RoutingMode fallback) throws Rejected {
        String text = singleParam(query, "routing");
        if (text == null) {
            return fallback;
        }
        try {
            return RoutingMode.parse(text);
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
    }

    private static Bytes placemark(Map<String, List<String>> query) throws Rejected {
        String text = singleParam(query, "placemark");
        if (text == null || text.isEmpty()) {
            return Bytes.EMPTY;
        }
        if (text.length() > PLACEMARK_DIGITS_MAX || text.length() % 2 != 0 || KeyParser.firstNonHex(text) >= 0) {
            throw badRequest("placemark must be the hex string a previous page returned, got "
                    + KeyParser.quote(text));
        }
        return Bytes.fromHex(text);
    }

    private static String singleParam(Map<String, List<String>> query, String name) throws Rejected {
        List<String> values = query.get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw badRequest(name + " is given " + values.size() + " times; give it once");
        }
        return values.get(0);
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
     * Percent-decodes one path segment as UTF-8. Unlike form decoding, {@code +} stays {@code +}. Characters the
     * request line carried raw are taken as the bytes they were read from, so a client that sends raw UTF-8 works too.
     */
    static String decodeSegment(String raw) {
        boolean plain = true;
        for (int i = 0; i < raw.length() && plain; i++) {
            plain = raw.charAt(i) != '%' && raw.charAt(i) < 0x80;
        }
        if (plain) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 1 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0 || raw.charAt(i + 1) >= 0x80 || raw.charAt(i + 2) >= 0x80) {
                    throw new IllegalArgumentException("bad percent-escape at character " + (i + 1) + " of "
                            + KeyParser.quote(raw) + ": '%' must be followed by two hex digits");
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x100) {
                bytes.write(c);
            } else {
                throw new IllegalArgumentException("the path holds a character outside ISO-8859-1: "
                        + KeyParser.quote(raw));
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the path segment " + KeyParser.quote(raw)
                    + " does not decode to UTF-8 text");
        }
    }

    private static long ceilSeconds(long millis) {
        return millis <= 0 ? 0 : (millis + 999) / 1000;
    }

    private static CompletableFuture<ApiResponse> done(ApiResponse response) {
        return CompletableFuture.completedFuture(response);
    }

    private static Rejected badRequest(String detail) {
        return new Rejected(Problems.badRequest(detail));
    }

    /** A request refused before it reaches the node; carries the response. Stackless: it is control flow. */
    private static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient ApiResponse response;

        Rejected(ApiResponse response) {
            super(null, null, false, false);
            this.response = response;
        }
    }
}
