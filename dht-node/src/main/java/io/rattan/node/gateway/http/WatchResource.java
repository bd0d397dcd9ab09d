package io.rattan.node.gateway.http;

import static io.rattan.node.gateway.http.Rejected.badRequest;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code /v1/keys/{key}/watch} (and {@code /v1/namespaces/{ns}/keys/{key}/watch}): GET starts a watch of the key, answered as server-sent events ({@link SseStream});
 * OPTIONS answers a browser's CORS preflight. The watch takes a get's value filter ({@code ?owner=&valueId=}) and
 * resumes from the {@code Last-Event-ID} header (or {@code ?lastEventId=}, for clients that cannot set headers).
 * Stateless and thread-safe.
 */
final class WatchResource {

    /** The header with which a client (an EventSource on its own) names the last event it saw. */
    static final String LAST_EVENT_ID = "Last-Event-ID";
    /** The query parameter that stands for {@link #LAST_EVENT_ID}. */
    static final String LAST_EVENT_ID_PARAM = "lastEventId";

    private WatchResource() {
    }

    /** The watch a GET asks for, as the response that makes the handler stream it. */
    static CompletableFuture<ApiResponse> watch(Scope scope, String keySegment, Map<String, List<String>> query,
                                                ApiRequest request) {
        try {
            Id key = KeysResource.key(keySegment);
            ValueFilter filter = QueryParams.filter(query);
            long[] resume = resumeFrom(query, request);
            return CompletableFuture.completedFuture(
                    cors(ApiResponse.stream(scope.wrap(new ClientWatch(key, filter, resume[0], resume[1])))));
        } catch (Rejected r) {
            return CompletableFuture.completedFuture(cors(r.response()));
        }
    }

    /** The answer to a browser's preflight: any origin may watch, sending the headers an EventSource sends. */
    static CompletableFuture<ApiResponse> preflight() {
        return CompletableFuture.completedFuture(cors(new ApiResponse(204, null, Bytes.EMPTY, Map.of(), false))
                .withHeader("Access-Control-Allow-Methods", "GET, OPTIONS")
                .withHeader("Access-Control-Allow-Headers", LAST_EVENT_ID + ", Cache-Control")
                .withHeader("Access-Control-Max-Age", "86400"));
    }

    /**
     * {@code response} readable by a page of any origin: the API has no cookies or credentials to protect, and a
     * page's EventSource must be able to read the stream (and a refusal) from another origin.
     */
    static ApiResponse cors(ApiResponse response) {
        return response.withHeader("Access-Control-Allow-Origin", "*");
    }

    /** The epoch and sequence to resume after: those of the event id the client sent, or 0 and 0 for none. */
    private static long[] resumeFrom(Map<String, List<String>> query, ApiRequest request) throws Rejected {
        List<String> headers = request.lastEventIds();
        List<String> params = query.getOrDefault(LAST_EVENT_ID_PARAM, List.of());
        if (headers.size() > 1 || params.size() > 1) {
            throw badRequest(LAST_EVENT_ID + " is given more than once; give it once");
        }
        // The header wins: an EventSource reconnecting to a URL with ?lastEventId= sends a newer id in the header.
        String header = headers.isEmpty() ? "" : headers.get(0).strip();
        String text = !header.isEmpty() ? header : params.isEmpty() ? "" : params.get(0).strip();
        if (text.isEmpty()) {
            return new long[] {0, 0};
        }
        try {
            return SseEvents.parseId(text);
        } catch (IllegalArgumentException e) {
            throw badRequest(LAST_EVENT_ID + ": " + e.getMessage());
        }
    }
}
