package io.rattan.node.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.node.NamespaceChange;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.gateway.GatewayBackend;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The namespaces of the cluster: {@code GET /v1/namespaces} lists them (the default first, with the node's own
 * settings; retired ones flagged); {@code PUT /admin/namespaces/{ns}} defines one, {@code DELETE} retires one,
 * {@code GET /admin/namespaces} lists them, for callers on the node's own host only (as {@code /admin/records}).
 * Also resolves the namespace a key route names ({@link #inScope}). Any thread; the futures complete on the thread
 * that completed the backend's.
 */
final class NamespacesResource {

    /** A key route, run once its namespace is known. */
    interface ScopedRoute {
        CompletableFuture<ApiResponse> route(Scope scope) throws Rejected;
    }

    private final GatewayBackend backend;
    private final NodeConfig node;

    NamespacesResource(GatewayBackend backend) {
        this.backend = backend;
        this.node = backend.config();
    }

    /** The listing: {@code {"namespaces": [...]}}, the default first, then the others by name. */
    CompletableFuture<ApiResponse> list() {
        return backend.namespaces().handle((all, failure) -> {
            if (failure != null) {
                return Problems.failure(failure);
            }
            ObjectNode body = Json.object();
            ArrayNode list = body.putArray("namespaces");
            NamespaceJson.describe(list.addObject(), NamespaceJson.defaultOf(node));
            for (NamespaceDefinition d : NamespaceJson.byName(all).values()) {
                NamespaceJson.describe(list.addObject(), d);
            }
            return ApiResponse.json(200, Json.bytes(body));
        });
    }

    CompletableFuture<ApiResponse> adminList(ApiRequest request) {
        return AdminResource.local(request) ? list() : done(notLocal());
    }

    /**
     * Defines namespace {@code nameSegment} from the request's JSON: 201 with the definition when made, 200 when the
     * same one was held, 409 when another is held, the name is retired or the cluster holds its most.
     */
    CompletableFuture<ApiResponse> define(String nameSegment, ApiRequest request) throws Rejected {
        if (!AdminResource.local(request)) {
            return done(notLocal());
        }
        String name = ownName(nameSegment);
        NamespaceDefinition asked = NamespaceJson.parse(name, request.body(), node);
        return backend.defineNamespace(asked).thenCompose(change -> backend.namespaces()
                .thenApply(all -> defined(change, asked, NamespaceJson.byName(all).get(name))))
                .exceptionally(NamespacesResource::refused);
    }

    /** Retires namespace {@code nameSegment}: 200 with its definition, now retired; 404 when none is known. */
    CompletableFuture<ApiResponse> retire(String nameSegment, ApiRequest request) throws Rejected {
        if (!AdminResource.local(request)) {
            return done(notLocal());
        }
        String name = ownName(nameSegment);
        return backend.retireNamespace(name).thenCompose(change -> backend.namespaces().thenApply(all -> {
            NamespaceDefinition held = NamespaceJson.byName(all).get(name);
            if (change == NamespaceChange.UNKNOWN || held == null) {
                return Problems.notFound("no namespace '" + name + "' is known here");
            }
            return ApiResponse.json(200, Json.bytes(NamespaceJson.describe(Json.object(), held)));
        })).exceptionally(NamespacesResource::refused);
    }

    /**
     * Runs {@code route} in the namespace {@code nameSegment} names: the default one at once, another once the node
     * says it holds it live; a 404 problem when it does not (never made, retired, or not heard of here yet).
     */
    CompletableFuture<ApiResponse> inScope(String nameSegment, ScopedRoute route) throws Rejected {
        String name = decoded(nameSegment);
        if (NamespaceDefinition.DEFAULT.equals(name)) {
            return route.route(Scope.ofDefault(node));
        }
        if (!NamespaceDefinition.validName(name)) {
            throw Rejected.badRequest("not a namespace name: '" + name + "' (1.." + NamespaceDefinition.NAME_CHARS_MAX
                    + " of a-z 0-9 . _ -, starting with a letter or digit)");
        }
        return backend.namespaces().thenCompose(all -> {
            NamespaceDefinition d = NamespaceJson.byName(all).get(name);
            if (d == null || d.retired()) {
                return done(Problems.notFound(d == null ? "no namespace '" + name + "' is known here"
                        : "namespace '" + name + "' was retired: its values are gone and its name is never reused"));
            }
            try {
                return route.route(Scope.of(d, node));
            } catch (Rejected r) {
                return done(r.response());
            }
        }).exceptionally(Problems::failure);
    }

    /** A name an operator may define or retire: well formed, and not the node's own. */
    private static String ownName(String segment) throws Rejected {
        String name = decoded(segment);
        if (NamespaceDefinition.DEFAULT.equals(name)) {
            throw new Rejected(Problems.problem(409, "conflict", "Conflict", "the namespace '"
                    + NamespaceDefinition.DEFAULT + "' is the node's own settings (its flags): it cannot be defined "
                    + "or retired"));
        }
        if (!NamespaceDefinition.validName(name)) {
            throw Rejected.badRequest("a namespace's name is 1.." + NamespaceDefinition.NAME_CHARS_MAX
                    + " of a-z 0-9 . _ -, starting with a letter or digit, got '" + name + "'");
        }
        return name;
    }

    private static String decoded(String segment) throws Rejected {
        try {
            return PathSegments.decode(segment);
        } catch (IllegalArgumentException e) {
            throw Rejected.badRequest("the namespace's name: " + e.getMessage());
        }
    }

    private static ApiResponse defined(NamespaceChange change, NamespaceDefinition asked, NamespaceDefinition held) {
        switch (change) {
            case CREATED:
                return ApiResponse.json(201, Json.bytes(NamespaceJson.describe(Json.object(), asked)))
                        .withHeader("Location", "/admin/namespaces/" + asked.name());
            case UNCHANGED:
                return ApiResponse.json(200, Json.bytes(NamespaceJson.describe(Json.object(), asked)));
            case CONFLICT:
                return conflict("namespace '" + asked.name() + "' is defined with other settings, and a definition "
                        + "never changes: " + (held == null ? "?" : Json.text(NamespaceJson.describe(Json.object(),
                        held))));
            case RETIRED:
                return conflict("namespace '" + asked.name() + "' was retired: a retired name is never reused");
            case FULL:
                return conflict("the cluster holds its most namespaces, " + NamespaceDefinition.COUNT_MAX
                        + ", retired ones included");
            default:
                return Problems.internal("unexpected answer to a definition: " + change);
        }
    }

    /** A failure of the backend: the node's refusal of the definition is the client's mistake, a 400. */
    private static ApiResponse refused(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof IllegalArgumentException ? Problems.badRequest(cause.getMessage())
                : Problems.failure(cause);
    }

    private static ApiResponse conflict(String detail) {
        return Problems.problem(409, "conflict", "Conflict", detail);
    }

    private static ApiResponse notLocal() {
        return Problems.forbidden("/admin/namespaces answers callers on this node's own host only");
    }

    private static CompletableFuture<ApiResponse> done(ApiResponse response) {
        return CompletableFuture.completedFuture(response);
    }
}
