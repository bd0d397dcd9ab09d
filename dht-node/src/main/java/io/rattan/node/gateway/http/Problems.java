package io.rattan.node.gateway.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Status;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Error responses as RFC 9457 problem details: {@code {"type","title","status","detail"}} served as
 * {@code application/problem+json}. Each kind of problem has a stable {@code type} URI and title; the detail says
 * what went wrong with this request.
 */
final class Problems {

    static final String TYPE_BASE = "https://rattan.dev/problems/";

    // Under the router's name, as the gateway has always logged, so that log settings for it keep applying.
    private static final Logger LOG = LoggerFactory.getLogger(ApiRouter.class);

    private Problems() {
    }

    static ApiResponse badRequest(String detail) {
        return problem(400, "bad-request", "Bad request", detail);
    }

    /** No valid bearer token: what a gateway that takes tokens answers a request without one. */
    static ApiResponse unauthorized() {
        return problem(401, "unauthorized", "Unauthorized", "this gateway takes requests with a bearer token only: "
                + "send 'Authorization: Bearer TOKEN'").withHeader("WWW-Authenticate", "Bearer realm=\"rattan\"");
    }

    static ApiResponse forbidden(String detail) {
        return problem(403, "forbidden", "Forbidden", detail);
    }

    static ApiResponse notFound(String detail) {
        return problem(404, "not-found", "Not found", detail);
    }

    static ApiResponse unknownPath(String path) {
        return problem(404, "unknown-path", "Unknown path", "no resource at " + KeyParser.quote(path)
                + "; the API serves /v1/keys/{key}, /v1/keys/{key}/{valueHash}, /v1/keys/{key}/watch, /health, /ready, /node and /metrics");
    }

    static ApiResponse methodNotAllowed(String method, String allow) {
        return problem(405, "method-not-allowed", "Method not allowed",
                KeyParser.quote(method) + " is not allowed here; allowed: " + allow)
                .withHeader("Allow", allow);
    }

    /**
     * An owned put the root refused for the value it holds: 409 for a sequence not above it (or a remove that would
     * not outlive it), 412 for a condition that did not hold. {@code currentSeq}, the sequence held, goes in the body
     * as an unsigned decimal string ({@code null}: none held) and, when there is one, in an {@code ETag}.
     */
    static ApiResponse ownedRefusal(Status status, String detail, Long currentSeq) {
        boolean conflict = status == Status.CONFLICT;
        int code = conflict ? 409 : 412;
        ObjectNode body = problemBody(code, conflict ? "conflict" : "precondition-failed",
                conflict ? "Conflict" : "Precondition failed", detail);
        if (currentSeq == null) {
            body.putNull("currentSeq");
            return new ApiResponse(code, ApiResponse.PROBLEM_JSON, Json.bytes(body), Map.of(), false);
        }
        body.put("currentSeq", Long.toUnsignedString(currentSeq));
        return new ApiResponse(code, ApiResponse.PROBLEM_JSON, Json.bytes(body), Map.of(), false)
                .withHeader("ETag", "\"" + Long.toUnsignedString(currentSeq) + "\"");
    }

    static ApiResponse tooLarge(String detail) {
        return problem(413, "value-too-large", "Value too large", detail);
    }

    static ApiResponse unavailable(String detail) {
        return problem(503, "unavailable", "Service unavailable", detail).withHeader("Retry-After", "1");
    }

    static ApiResponse notReady(String detail) {
        return problem(503, "not-ready", "Not ready", detail).withHeader("Retry-After", "1");
    }

    /** 429 for a client over its request rate; Retry-After in whole seconds, at least 1. */
    static ApiResponse rateLimited(String detail, long retryAfterMillis) {
        return problem(429, "rate-limited", "Too many requests", detail)
                .withHeader("Retry-After", retryAfterSeconds(retryAfterMillis));
    }

    /**
     * 429 for a client that holds its whole storage share at this gateway (DESIGN.md's "429 over a client's fair
     * share"); Retry-After says when some of its values expire. Another type than the rate's, so that a client can
     * tell waiting a second from waiting for its values to expire.
     */
    static ApiResponse quotaExceeded(String detail, long retryAfterMillis) {
        return problem(429, "quota-exceeded", "Storage share exceeded", detail)
                .withHeader("Retry-After", retryAfterSeconds(retryAfterMillis));
    }

    /** The response for an error reply, with its retry advice. */
    static ApiResponse forError(ErrorReply error) {
        switch (error.status()) {
            case RATE_LIMITED:
                return rateLimited(orElse(error.detail(), "too many requests; retry later"), error.retryAfterMillis());
            case QUOTA_EXCEEDED:
                return quotaExceeded(orElse(error.detail(), "storage share full"), error.retryAfterMillis());
            default:
                return forStatus(error.status(), error.detail());
        }
    }

    private static String retryAfterSeconds(long millis) {
        return Long.toString(Math.max(1, (millis + 999) / 1000));
    }

    static ApiResponse timeout(String detail) {
        return problem(504, "timeout", "Gateway timeout", detail);
    }

    static ApiResponse internal(String detail) {
        return problem(500, "internal", "Internal error", detail);
    }

    /** The response for a reply that did not succeed; {@code detail} from the node, or a default when blank. */
    static ApiResponse forStatus(Status status, String detail) {
        switch (status) {
            case NOT_FOUND:
                return notFound(orElse(detail, "no such value under this key"));
            case FORBIDDEN:
                return forbidden(orElse(detail, "the secret does not match the one the value was put with"));
            case BAD_REQUEST:
                return badRequest(orElse(detail, "the node rejected the request as malformed"));
            case TOO_LARGE:
                return tooLarge(orElse(detail, "the node rejected the value as too large"));
            case UNAVAILABLE:
                return unavailable(orElse(detail, "the node cannot serve requests now; retry shortly"));
            case TIMEOUT:
                return timeout(orElse(detail, "the overlay did not answer in time"));
            case INTERNAL:
                return internal(orElse(detail, "the node failed to serve the request"));
            case STORAGE_FULL:
                return problem(507, "storage-full", "Insufficient storage",
                        orElse(detail, "replicas' storage is full; the value was not stored on enough of them"));
            case IO_ERROR:
                return problem(503, "storage-io-error", "Storage I/O error",
                        orElse(detail, "a replica's storage failed; retry shortly")).withHeader("Retry-After", "1");
            case RATE_LIMITED:
                return rateLimited(orElse(detail, "too many requests; retry later"), 1000);
            case QUOTA_EXCEEDED:
                return quotaExceeded(orElse(detail, "storage share full"), 60_000);
            case CONFLICT:
                return problem(409, "conflict", "Conflict", orElse(detail, "a newer version is held"));
            case PRECONDITION_FAILED:
                return problem(412, "precondition-failed", "Precondition failed",
                        orElse(detail, "the value held is not the one the condition names"));
            case OK:
            default:
                return internal("the node answered " + status + " where the gateway expected an error");
        }
    }

    /** The response for a call to the node that failed: shutting down (503), too slow (504), or anything else (500). */
    static ApiResponse failure(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof RejectedExecutionException) {
            return unavailable("the node is shutting down");
        }
        if (cause instanceof TimeoutException) {
            return timeout("the node did not answer in time");
        }
        LOG.warn("gateway backend failed", cause);
        return internal("the node failed to serve the request");
    }

    /** The response for a reply of another kind than the request asks for: a bug, logged. */
    static ApiResponse unexpected(Message reply) {
        LOG.error("gateway backend answered with an unexpected message: {}", reply == null ? null : reply.type());
        return internal("the node answered with an unexpected message");
    }

    static ApiResponse problem(int status, String slug, String title, String detail) {
        return new ApiResponse(status, ApiResponse.PROBLEM_JSON, Json.bytes(problemBody(status, slug, title, detail)),
                Map.of(), false);
    }

    private static ObjectNode problemBody(int status, String slug, String title, String detail) {
        ObjectNode body = Json.object();
        body.put("type", TYPE_BASE + slug);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        return body;
    }

    private static String orElse(String detail, String fallback) {
        return detail == null || detail.isBlank() ? fallback : detail;
    }
}
