package io.rattan.node.gateway.http;

import static io.rattan.node.gateway.http.Rejected.badRequest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Bytes;
import io.rattan.api.RoutingMode;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A namespace's definition as JSON: read from the body of {@code PUT /admin/namespaces/{ns}}, written by the listings
 * and the admin answers. Fields: {@code replicas}, {@code writeQuorum}, {@code storage} ({@code disk} or
 * {@code memory}), {@code ttlSecondsMax}, {@code valueBytesMax}, {@code routing} (a get mode's name); written also
 * {@code name} and {@code retired}. Stateless and thread-safe.
 */
final class NamespaceJson {

    static final String DISK = "disk";
    static final String MEMORY = "memory";
    private static final Set<String> FIELDS =
            Set.of("replicas", "writeQuorum", "storage", "ttlSecondsMax", "valueBytesMax", "routing");
    // Strict about duplicate fields: "replicas" given twice is a mistake, not the last one's word.
    private static final ObjectMapper READER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private NamespaceJson() {
    }

    /** The settings of the default namespace: the node's own flags. */
    static NamespaceDefinition defaultOf(NodeConfig node) {
        return new NamespaceDefinition(NamespaceDefinition.DEFAULT, node.replicas(), node.writeQuorum(), false,
                node.ttlSecondsMax(), node.valueBytesMax(), RoutingMode.DEFAULT, false);
    }

    /**
     * The definition of {@code name} that {@code body} asks for; a field left out takes the node's own setting
     * (W at most k), disk storage and the default get mode. An empty body takes every default.
     *
     * @throws Rejected 400 naming the field: not a JSON object, an unknown field, a value of the wrong type or out
     *                  of its bounds, replicas above the leaf set's half + 1
     */
    static NamespaceDefinition parse(String name, Bytes body, NodeConfig node) throws Rejected {
        ObjectNode fields = object(body);
        for (Iterator<String> it = fields.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!FIELDS.contains(field)) {
                throw badRequest("unknown field '" + field + "'; a namespace has " + String.join(", ",
                        new TreeSet<>(FIELDS)));
            }
        }
        int replicas = integer(fields, "replicas", node.replicas());
        int writeQuorum = integer(fields, "writeQuorum", Math.min(node.writeQuorum(), Math.max(replicas, 1)));
        boolean inMemory = storage(fields);
        int ttlSecondsMax = integer(fields, "ttlSecondsMax", node.ttlSecondsMax());
        int valueBytesMax = integer(fields, "valueBytesMax", node.valueBytesMax());
        RoutingMode routing = routing(fields);
        String problem = NamespaceDefinition.problem(name, replicas, writeQuorum, ttlSecondsMax, valueBytesMax,
                routing);
        if (problem != null) {
            throw badRequest(problem);
        }
        if (replicas > node.leafSetHalf() + 1) {
            throw badRequest("replicas must be at most the leaf set's half + 1 (" + (node.leafSetHalf() + 1)
                    + "), got " + replicas);
        }
        if (valueBytesMax > NodeConfig.WIRE_VALUE_BYTES_MAX) {
            throw badRequest("valueBytesMax must be at most " + NodeConfig.WIRE_VALUE_BYTES_MAX + ", got "
                    + valueBytesMax);
        }
        return new NamespaceDefinition(name, replicas, writeQuorum, inMemory, ttlSecondsMax, valueBytesMax, routing,
                false);
    }

    /** {@code d} as the API shows it, into {@code o}. */
    static ObjectNode describe(ObjectNode o, NamespaceDefinition d) {
        o.put("name", d.name());
        o.put("replicas", d.replicas());
        o.put("writeQuorum", d.writeQuorum());
        o.put("storage", d.inMemory() ? MEMORY : DISK);
        o.put("ttlSecondsMax", d.ttlSecondsMax());
        o.put("valueBytesMax", d.valueBytesMax());
        o.put("routing", d.routing().label());
        o.put("retired", d.retired());
        return o;
    }

    private static ObjectNode object(Bytes body) throws Rejected {
        if (body.isEmpty()) {
            return READER.createObjectNode();
        }
        JsonNode tree;
        try {
            tree = READER.readTree(body.toByteArray());
        } catch (JsonProcessingException e) {
            throw badRequest("the body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw badRequest("the body cannot be read as JSON: " + e.getMessage());
        }
        if (tree == null || !tree.isObject()) {
            throw badRequest("the body must be a JSON object of the namespace's settings");
        }
        return (ObjectNode) tree;
    }

    private static int integer(ObjectNode fields, String field, int absent) throws Rejected {
        JsonNode v = fields.get(field);
        if (v == null) {
            return absent;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw badRequest(field + " must be a whole number, got " + v);
        }
        return v.intValue();
    }

    private static boolean storage(ObjectNode fields) throws Rejected {
        JsonNode v = fields.get("storage");
        if (v == null) {
            return false;
        }
        if (v.isTextual() && (DISK.equals(v.textValue()) || MEMORY.equals(v.textValue()))) {
            return MEMORY.equals(v.textValue());
        }
        throw badRequest("storage must be \"" + DISK + "\" or \"" + MEMORY + "\", got " + v);
    }

    private static RoutingMode routing(ObjectNode fields) throws Rejected {
        JsonNode v = fields.get("routing");
        if (v == null) {
            return RoutingMode.DEFAULT;
        }
        if (!v.isTextual()) {
            throw badRequest("routing must be greedy, delay-aware or iterative, got " + v);
        }
        try {
            return RoutingMode.parse(v.textValue());
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
    }

    /** The definitions by name, for a listing. */
    static Map<String, NamespaceDefinition> byName(Iterable<NamespaceDefinition> all) {
        Map<String, NamespaceDefinition> m = new TreeMap<>();
        all.forEach(d -> m.put(d.name(), d));
        return m;
    }
}
