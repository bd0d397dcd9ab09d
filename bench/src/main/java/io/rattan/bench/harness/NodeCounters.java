package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The {@code nodes} section of a report's {@code summary.json}: the nodes' own counters between the scrapes before
 * and after the load ({@link NodeScrape}): gets and puts each node served as gateway (every copy counts), messages
 * and peer bytes all nodes sent (maintenance included), and each node's stored records at the end. It covers the
 * whole load, warm-up included, whatever the report's window.
 */
final class NodeCounters {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String REQUESTS = "rattan_gateway_requests_seconds_count";

    /** One node's counters: its index, gets and puts it served as gateway, and its stored records at the end. */
    private record PerNode(int node, double gets, double puts, double stored) {
    }

    private final List<PerNode> perNode = new ArrayList<>();
    private double messages;
    private double peerBytes;

    private NodeCounters() {
    }

    /** The section for the run in {@code runDir}, or a note saying that no node was scraped. */
    static JsonNode read(Path runDir) throws IOException {
        Path dir = runDir.resolve(NodeScrape.DIR);
        if (!Files.isDirectory(dir)) {
            ObjectNode n = NODES.objectNode();
            n.put("note", "no node metrics were scraped (no HTTP address of the nodes was known)");
            return n;
        }
        NodeCounters c = new NodeCounters();
        int count = nodeCount(dir);
        for (int i = 0; i < count; i++) {
            c.add(dir, i);
        }
        return c.toJson();
    }

    /** One more than the highest node index among the {@code start-<i>.prom} files. */
    private static int nodeCount(Path dir) throws IOException {
        int count = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                if (name.startsWith("start-") && name.endsWith(".prom")) {
                    count = Math.max(count, Integer.parseInt(name.substring(6, name.length() - 5)) + 1);
                }
            }
        }
        return count;
    }

    /** Adds node {@code i}'s counters; a node without both scrapes is left out. */
    private void add(Path dir, int i) throws IOException {
        Path start = dir.resolve("start-" + i + ".prom");
        Path end = dir.resolve("end-" + i + ".prom");
        if (!Files.exists(start) || !Files.exists(end)) {
            return;
        }
        Map<String, Double> a = NodeScrape.parse(Files.readString(start, StandardCharsets.UTF_8));
        Map<String, Double> b = NodeScrape.parse(Files.readString(end, StandardCharsets.UTF_8));
        perNode.add(new PerNode(i, delta(a, b, REQUESTS, "op=\"get\""), delta(a, b, REQUESTS, "op=\"put\""),
                NodeScrape.sum(b, "rattan_store_records")));
        messages += delta(a, b, "rattan_messages_sent_total");
        peerBytes += delta(a, b, "rattan_transport_bytes_sent_total", "protocol=\"peer\"");
    }

    private ObjectNode toJson() {
        ObjectNode n = NODES.objectNode();
        double gets = 0;
        double puts = 0;
        ArrayNode nodes = n.putArray("perNode");
        for (PerNode p : perNode) {
            ObjectNode o = nodes.addObject();
            o.put("node", p.node());
            o.put("getsServed", (long) p.gets());
            o.put("putsServed", (long) p.puts());
            o.put("storedRecords", (long) p.stored());
            gets += p.gets();
            puts += p.puts();
        }
        n.put("nodesScraped", perNode.size());
        n.put("getsServed", (long) gets);
        n.put("putsServed", (long) puts);
        n.put("messagesSent", (long) messages);
        n.put("peerBytesSent", (long) peerBytes);
        n.put("messagesPerRequest", gets + puts == 0 ? Double.NaN : messages / (gets + puts));
        n.put("peerBytesPerRequest", gets + puts == 0 ? Double.NaN : peerBytes / (gets + puts));
        n.set("requestsServedPerNode", spread(perNode.stream().mapToDouble(p -> p.gets() + p.puts()).toArray()));
        n.set("storedRecordsPerNode", spread(perNode.stream().mapToDouble(PerNode::stored).toArray()));
        n.put("note", "between the scrapes before and after the load (warm-up included, not sliced by --from/--to); "
                + "requests served count every copy a node served as gateway; messages and bytes include "
                + "maintenance traffic");
        return n;
    }

    private static double delta(Map<String, Double> a, Map<String, Double> b, String name, String... labels) {
        return NodeScrape.sum(b, name, labels) - NodeScrape.sum(a, name, labels);
    }

    /** min, mean, max and max/mean of {@code values} (one per node); empty when there is no node. */
    private static ObjectNode spread(double[] values) {
        ObjectNode o = NODES.objectNode();
        if (values.length == 0) {
            return o;
        }
        double min = Double.MAX_VALUE;
        double max = 0;
        double sum = 0;
        for (double v : values) {
            min = Math.min(min, v);
            max = Math.max(max, v);
            sum += v;
        }
        double mean = sum / values.length;
        o.put("min", min);
        o.put("mean", mean);
        o.put("max", max);
        o.put("maxOverMean", mean == 0 ? Double.NaN : max / mean);
        return o;
    }
}
