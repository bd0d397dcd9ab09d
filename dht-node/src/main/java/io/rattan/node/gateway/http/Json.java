package io.rattan.node.gateway.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Bytes;

/** The gateway's one JSON writer. ObjectMapper is thread-safe once configured, so one instance serves all loops. */
final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static Bytes bytes(JsonNode node) {
        try {
            return Bytes.wrap(MAPPER.writeValueAsBytes(node));
        } catch (JsonProcessingException e) {
            // A tree of plain nodes always serialises; reaching here is a bug.
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    /** The node as one line of JSON text. */
    static String text(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }
}
