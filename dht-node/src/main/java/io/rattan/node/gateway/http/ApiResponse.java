package io.rattan.node.gateway.http;

import io.rattan.api.Bytes;
import io.rattan.core.msg.Message;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One HTTP response as the router builds it; the handler turns it into Netty's form.
 *
 * @param status      the HTTP status code
 * @param contentType the body's media type, or null when there is no body
 * @param body        the body bytes
 * @param headers     extra headers such as {@code Allow}, {@code Retry-After} or {@code Location}
 * @param close       true when the connection must be closed after this response, whatever the client asked
 * @param watch       for a watch's event stream ({@link #stream}), the watch the handler starts on the connection
 *                    (a {@code ClientWatch}, wrapped in an {@code InNamespace} outside the default namespace);
 *                    null for every other response
 */
record ApiResponse(int status, String contentType, Bytes body, Map<String, String> headers, boolean close,
                   Message watch) {

    static final String JSON = "application/json";
    static final String PROBLEM_JSON = "application/problem+json";
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    ApiResponse {
        // Sorted, so that responses are byte-for-byte the same from run to run.
        headers = Collections.unmodifiableMap(new TreeMap<>(headers));
    }

    ApiResponse(int status, String contentType, Bytes body, Map<String, String> headers, boolean close) {
        this(status, contentType, body, headers, close, null);
    }

    /**
     * The answer to a watch: not a body but a stream of its events, which the handler runs on the connection
     * ({@link SseStream}) once the watch's first event tells whether the node took it.
     */
    static ApiResponse stream(Message watch) {
        return new ApiResponse(200, SseStream.EVENT_STREAM, Bytes.EMPTY, Map.of(), false, watch);
    }

    static ApiResponse json(int status, Bytes body) {
        return new ApiResponse(status, JSON, body, Map.of(), false);
    }

    static ApiResponse noContent() {
        return new ApiResponse(204, null, Bytes.EMPTY, Map.of(), false);
    }

    ApiResponse withHeader(String name, String value) {
        Map<String, String> more = new TreeMap<>(headers);
        more.put(name, value);
        return new ApiResponse(status, contentType, body, more, close, watch);
    }

    ApiResponse closing() {
        return new ApiResponse(status, contentType, body, headers, true, watch);
    }
}
