package io.rattan.node.gateway.http;

import io.rattan.core.util.Bytes;
import java.net.InetAddress;
import java.util.List;

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
 */
record ApiRequest(String method, String uri, List<String> secrets, Bytes body, boolean keepAlive, String malformed,
                  InetAddress client) {

    ApiRequest {
        secrets = List.copyOf(secrets);
    }

    static ApiRequest of(String method, String uri, List<String> secrets, Bytes body, boolean keepAlive) {
        return new ApiRequest(method, uri, secrets, body, keepAlive, null, null);
    }

    /** A request the HTTP decoder rejected; it is answered with 400 and the connection is closed. */
    static ApiRequest malformed(String why) {
        return new ApiRequest("", "", List.of(), Bytes.EMPTY, false, why, null);
    }

    /** This request, sent from {@code ip}. */
    ApiRequest from(InetAddress ip) {
        return new ApiRequest(method, uri, secrets, body, keepAlive, malformed, ip);
    }

    boolean isMalformed() {
        return malformed != null;
    }
}
