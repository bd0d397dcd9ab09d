package io.rattan.node.gateway.http;

import io.rattan.api.Bytes;
import io.rattan.node.limits.ClientId;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * One HTTP request as the router sees it, copied out of Netty's buffers so that it can wait in a queue without
 * holding pooled memory.
 *
 * @param method    the request method, e.g. {@code GET}
 * @param uri       the request target as sent (path and query, still percent-encoded)
 * @param secrets   every value of the {@code Rattan-Secret} header, in order; usually none or one
 * @param body      the body bytes
 * @param keepAlive whether the client wants the connection kept open after the response
 * @param malformed why the bytes could not be decoded as HTTP, or null for a well-formed request
 * @param client    the source IP of the connection, or null when unknown; its storage share pays for a put
 * @param owner     every value of each owned put's header ({@link OwnerHeaders#ALL}) present, by name
 * @param lastEventIds every value of the {@code Last-Event-ID} header, with which a watch resumes; usually none
 * @param principal whom the request's rate and a put's storage share count against: its token's client where the
 *                  gateway takes tokens (null: it carried none valid), else the source IP's (null when unknown)
 */
record ApiRequest(String method, String uri, List<String> secrets, Bytes body, boolean keepAlive, String malformed,
                  InetAddress client, Map<String, List<String>> owner, List<String> lastEventIds,
                  ClientId principal) {

    ApiRequest {
        secrets = List.copyOf(secrets);
        owner = Map.copyOf(owner);
        lastEventIds = List.copyOf(lastEventIds);
    }

    static ApiRequest of(String method, String uri, List<String> secrets, Bytes body, boolean keepAlive) {
        return of(method, uri, secrets, body, keepAlive, Map.of());
    }

    static ApiRequest of(String method, String uri, List<String> secrets, Bytes body, boolean keepAlive,
                         Map<String, List<String>> owner) {
        return new ApiRequest(method, uri, secrets, body, keepAlive, null, null, owner, List.of(), null);
    }

    /** This request, with the {@code Last-Event-ID} header's values. */
    ApiRequest withLastEventIds(List<String> ids) {
        return new ApiRequest(method, uri, secrets, body, keepAlive, malformed, client, owner, ids, principal);
    }

    /** A request the HTTP decoder rejected; it is answered with 400 and the connection is closed. */
    static ApiRequest malformed(String why) {
        return new ApiRequest("", "", List.of(), Bytes.EMPTY, false, why, null, Map.of(), List.of(), null);
    }

    /** This request, sent from {@code ip}, counted against {@code by}. */
    ApiRequest from(InetAddress ip, ClientId by) {
        return new ApiRequest(method, uri, secrets, body, keepAlive, malformed, ip, owner, lastEventIds, by);
    }

    boolean isMalformed() {
        return malformed != null;
    }
}
