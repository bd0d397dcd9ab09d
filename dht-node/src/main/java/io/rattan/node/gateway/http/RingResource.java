package io.rattan.node.gateway.http;

import static io.rattan.node.gateway.http.QueryParams.intParam;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.ClientMessages.ClientRing;
import io.rattan.core.msg.ClientMessages.RingReply;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.net.Contact;
import io.rattan.node.gateway.GatewayBackend;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code GET /v1/ring?max=N&placemark=HEX}: a page of the nodes this gateway knows, in id order, each with its peer
 * and gateway ports, for clients that route one-hop themselves (the binary {@code ClientRing}). Any thread.
 */
final class RingResource {

    /** Most nodes a page names: the node's own bound, so a larger max would only be clamped. */
    static final int PAGE_NODES_MAX = 256;

    private final GatewayBackend backend;

    RingResource(GatewayBackend backend) {
        this.backend = backend;
    }

    CompletableFuture<ApiResponse> ring(Map<String, List<String>> query) throws Rejected {
        int max = intParam(query, "max", PAGE_NODES_MAX, 1, PAGE_NODES_MAX, "nodes");
        List<String> marks = query.getOrDefault("placemark", List.of());
        if (marks.size() > 1) {
            throw Rejected.badRequest("placemark is given more than once");
        }
        String mark = marks.isEmpty() ? "" : marks.get(0);
        if (!mark.isEmpty() && (mark.length() != Id.DIGITS || KeyParser.firstNonHex(mark) >= 0)) {
            throw Rejected.badRequest("placemark must be the 40 hex digits of the node id a previous page returned, "
                    + "got " + KeyParser.quote(mark));
        }
        ClientRing request = new ClientRing(mark.isEmpty() ? Bytes.EMPTY : Bytes.fromHex(mark), max);
        CompletableFuture<Message> reply;
        try {
            reply = backend.request(request);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Problems.failure(e));
        }
        return reply.handle((m, error) -> error != null ? Problems.failure(error)
                : m instanceof ErrorReply e ? Problems.forError(e)
                : m instanceof RingReply r ? ApiResponse.json(200, Json.bytes(body(r)))
                : Problems.unexpected(m));
    }

    private static ObjectNode body(RingReply page) {
        ObjectNode body = Json.object();
        ArrayNode nodes = body.putArray("nodes");
        for (Contact c : page.nodes()) {
            ObjectNode n = nodes.addObject();
            n.put("id", c.id().toHex());
            n.put("host", c.address().host());
            n.put("peerPort", c.address().port());
            n.put("gatewayPort", c.gatewayPort());
        }
        if (page.placemark().isEmpty()) {
            body.putNull("placemark");
        } else {
            body.put("placemark", page.placemark().toHex());
        }
        body.put("replicas", page.replicas());
        return body;
    }
}
