package io.rattan.node.gateway.http;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.gateway.GatewayBackend;
import io.rattan.node.gateway.permanent.PermanentValues;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The HTTP API of DESIGN.md: hands each request to the resource its path names ({@link KeysResource},
 * {@link RingResource}, {@link AdminResource}, {@link NodeResource}, {@link WatchResource}, {@link NamespacesResource})
 * after checking its method, and answers a
 * malformed request, an unknown path or a wrong method itself. Knows nothing of Netty's channels, so it can be driven
 * from any thread; the futures it returns complete on whatever thread completed the backend's future.
 */
final class ApiRouter {

    private static final String GET = "GET";
    private static final String POST = "POST";
    private static final String PUT = "PUT";
    private static final String DELETE = "DELETE";
    private static final String OPTIONS = "OPTIONS";
    /** The last segment that makes a key's path its watch; a value hash is never this word, so it goes first. */
    private static final String WATCH = "watch";

    private final KeysResource keys;
    private final AdminResource admin;
    private final NodeResource node;
    private final RingResource ring;
    private final NamespacesResource namespaces;
    private final HttpSurfaces serves;
    private final GatewayBackend backend;

    ApiRouter(GatewayBackend backend, ClientGuard guard, HttpSurfaces serves, PermanentValues permanent) {
        this.backend = backend;
        this.keys = new KeysResource(backend, guard, permanent);
        this.admin = new AdminResource(backend);
        this.node = new NodeResource(backend);
        this.ring = new RingResource(backend);
        this.namespaces = new NamespacesResource(backend);
        this.serves = serves;
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
        try {
            return dispatch(request.method(), path, segments, query, request);
        } catch (Rejected r) {
            return done(r.response());
        }
    }

    private CompletableFuture<ApiResponse> dispatch(String method, String path, String[] segments,
                                                    Map<String, List<String>> query, ApiRequest request)
            throws Rejected {
        if (segments.length == 1) {
            return operations(method, path, segments[0]);
        }
        if (segments[0].equals("admin") && !serves.admin() || segments[0].equals("v1") && !serves.keys()) {
            return done(Problems.unknownPath(path));
        }
        if (segments.length == 2 && segments[0].equals("admin") && segments[1].equals("records")) {
            requireMethod(method, GET);
            return admin.records(request);
        }
        if (segments.length == 2 && segments[0].equals("admin") && segments[1].equals("backup")) {
            requireMethod(method, POST);
            return admin.backup(request, query);
        }
        if (segments.length == 2 && segments[0].equals("admin") && segments[1].equals("slow-trace")) {
            requireMethod(method, POST);
            return admin.armSlowTrace(request, query);
        }
        if (segments.length == 2 && segments[0].equals("v1") && segments[1].equals("ring")) {
            requireMethod(method, GET);
            return ring.ring(query);
        }
        if (segments[0].equals("v1") && segments[1].equals("keys")) {
            return keyRoute(Scope.ofDefault(backend.config()), method, path, segments, 2, query, request);
        }
        if (segments[1].equals("namespaces")) {
            return namespaces(method, path, segments, query, request);
        }
        return done(Problems.unknownPath(path));
    }

    /**
     * {@code /v1/namespaces}, {@code /v1/namespaces/{ns}/keys/...} (the key routes in namespace {@code ns}),
     * {@code /admin/namespaces} and {@code /admin/namespaces/{ns}}.
     */
    private CompletableFuture<ApiResponse> namespaces(String method, String path, String[] segments,
                                                      Map<String, List<String>> query, ApiRequest request)
            throws Rejected {
        boolean admin = segments[0].equals("admin");
        if (segments.length == 2 && (admin || segments[0].equals("v1"))) {
            requireMethod(method, GET);
            return admin ? namespaces.adminList(request) : namespaces.list();
        }
        if (admin && segments.length == 3) {
            requireMethod(method, PUT, DELETE);
            return method.equals(PUT) ? namespaces.define(segments[2], request)
                    : namespaces.retire(segments[2], request);
        }
        if (!admin && segments[0].equals("v1") && segments.length >= 4 && segments[3].equals("keys")) {
            // The method and the path's shape are checked before the namespace is looked up at the node.
            keyRoute(null, method, path, segments, 4, query, request);
            return namespaces.inScope(segments[2],
                    scope -> keyRoute(scope, method, path, segments, 4, query, request));
        }
        return done(Problems.unknownPath(path));
    }

    /**
     * The key routes, the key at {@code segments[at]}: {@code {key}} (GET, POST), {@code {key}/watch} (GET,
     * OPTIONS), {@code {key}/{valueHash}} (DELETE), {@code {key}/owned/{owner}/{valueId}} (DELETE). With a null
     * scope, only checks the path and method (null when they are fine).
     */
    private CompletableFuture<ApiResponse> keyRoute(Scope scope, String method, String path, String[] segments,
                                                    int at, Map<String, List<String>> query, ApiRequest request)
            throws Rejected {
        int rest = segments.length - at;
        if (rest == 1) {
            requireMethod(method, GET, POST);
            return scope == null ? null : method.equals(GET)
                    ? keys.get(scope, segments[at], query)
                    : keys.put(scope, segments[at], query, request);
        }
        if (rest == 2 && segments[at + 1].equals(WATCH)) {
            requireMethod(method, GET, OPTIONS);
            return scope == null ? null : method.equals(GET)
                    ? WatchResource.watch(scope, segments[at], query, request)
                    : WatchResource.preflight();
        }
        if (rest == 2) {
            requireMethod(method, DELETE);
            return scope == null ? null : keys.remove(scope, segments[at], segments[at + 1], query, request);
        }
        if (rest == 4 && segments[at + 1].equals("owned")) {
            requireMethod(method, DELETE);
            return scope == null ? null
                    : keys.removeOwned(scope, segments[at], segments[at + 2], segments[at + 3], query, request);
        }
        throw new Rejected(Problems.unknownPath(path));
    }

    /** The node a watch's stream is started at ({@link SseStream}): the handler runs streams, not the router. */
    GatewayBackend backend() {
        return backend;
    }

    /** The one-segment paths: {@code /health}, {@code /ready}, {@code /node}, {@code /metrics}. */
    private CompletableFuture<ApiResponse> operations(String method, String path, String segment) throws Rejected {
        switch (segment) {
            case "health":
                requireMethod(method, GET);
                return node.health();
            case "ready":
                requireMethod(method, GET);
                return node.ready();
            case "node":
                if (!serves.node()) {
                    return done(Problems.unknownPath(path));
                }
                requireMethod(method, GET);
                return node.node();
            case "metrics":
                if (!serves.metrics()) {
                    return done(Problems.unknownPath(path));
                }
                requireMethod(method, GET);
                return node.metrics();
            default:
                return done(Problems.unknownPath(path));
        }
    }

    private static void requireMethod(String method, String... allowed) throws Rejected {
        for (String m : allowed) {
            if (m.equals(method)) {
                return;
            }
        }
        throw new Rejected(Problems.methodNotAllowed(method, String.join(", ", allowed)));
    }

    private static CompletableFuture<ApiResponse> done(ApiResponse response) {
        return CompletableFuture.completedFuture(response);
    }
}
