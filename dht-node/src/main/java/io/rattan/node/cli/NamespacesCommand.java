package io.rattan.node.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Address;
import io.rattan.api.RoutingMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rattan namespaces}: lists the cluster's namespaces ({@code GET /v1/namespaces}); {@code create} and
 * {@code retire} define and retire one ({@code PUT} and {@code DELETE /admin/namespaces/{ns}}), which a node answers
 * only on its own host. Over HTTP, since namespaces are an operator's business, not the binary client's.
 */
@Command(name = "namespaces",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        description = {"Lists the cluster's namespaces, as one node knows them: the default one (the node's own "
                + "settings) first. 'create' and 'retire' ask a node on this host (its HTTP port) to define or retire "
                + "one; every node hears of it.",
            "Exits 1 when the node refuses (the detail is printed) or cannot be reached."},
        footer = {"", "Examples: rattan namespaces --http 127.0.0.1:4080",
            "          rattan namespaces --http 127.0.0.1:4080 create sessions --replicas 2 --storage memory",
            "          rattan namespaces retire sessions"})
final class NamespacesCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    private CommandSpec spec;

    @Option(names = "--http", paramLabel = "HOST:PORT", converter = Converters.AddressConverter.class,
            defaultValue = "127.0.0.1:4080",
            description = "A node's HTTP port (create and retire: on this host); give it before create or retire.")
    Address http;

    @Override
    public Integer call() throws InterruptedException {
        return send("GET", "/v1/namespaces", null, body -> {
            for (JsonNode n : body.get("namespaces")) {
                out().println(line(n));
            }
        });
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Defines a namespace; a setting left out takes its default (the node's own; disk; "
                    + "delay-aware). A definition never changes: the same settings again succeed, others fail.")
    int create(@Parameters(paramLabel = "NAME", description = "1..64 of a-z 0-9 . _ -") String name,
               @Option(names = "--replicas", paramLabel = "K") Integer replicas,
               @Option(names = "--write-quorum", paramLabel = "W") Integer writeQuorum,
               @Option(names = "--storage", paramLabel = "disk|memory") String storage,
               @Option(names = "--ttl-max", paramLabel = "SECONDS") Integer ttlSecondsMax,
               @Option(names = "--value-bytes-max", paramLabel = "BYTES") Integer valueBytesMax,
               @Option(names = "--routing", paramLabel = "MODE",
                       converter = Converters.RoutingConverter.class) RoutingMode routing)
            throws InterruptedException {
        ObjectNode body = JSON.createObjectNode();
        putIfGiven(body, "replicas", replicas);
        putIfGiven(body, "writeQuorum", writeQuorum);
        if (storage != null) {
            body.put("storage", storage);
        }
        putIfGiven(body, "ttlSecondsMax", ttlSecondsMax);
        putIfGiven(body, "valueBytesMax", valueBytesMax);
        if (routing != null) {
            body.put("routing", routing.label());
        }
        return send("PUT", "/admin/namespaces/" + name, body.toString(), d -> out().println(line(d)));
    }

    @Command(name = "retire", mixinStandardHelpOptions = true,
            description = "Retires a namespace: every node drops its values, and its name is never used again.")
    int retire(@Parameters(paramLabel = "NAME") String name) throws InterruptedException {
        return send("DELETE", "/admin/namespaces/" + name, null, d -> out().println(line(d)));
    }

    /** One namespace as a line: its name and settings. */
    static String line(JsonNode n) {
        return String.format("%-20s k=%d W=%d %-6s ttlMax=%ds valueMax=%dB %s%s", n.get("name").asText(),
                n.get("replicas").asInt(), n.get("writeQuorum").asInt(), n.get("storage").asText(),
                n.get("ttlSecondsMax").asLong(), n.get("valueBytesMax").asLong(), n.get("routing").asText(),
                n.get("retired").asBoolean() ? " retired" : "");
    }

    /** Sends one request; prints the answer with {@code onOk}, or the problem's detail; the exit status. */
    private int send(String method, String path, String body, Consumer<JsonNode> onOk)
            throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String host = http.host().contains(":") ? "[" + http.host() + "]" : http.host();
        URI uri = URI.create("http://" + host + ":" + http.port() + path);
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode answer = r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
            if (r.statusCode() / 100 == 2) {
                onOk.accept(answer);
                return 0;
            }
            spec.commandLine().getErr().println("refused (" + r.statusCode() + "): "
                    + (answer.has("detail") ? answer.get("detail").asText() : r.body()));
        } catch (IOException e) {
            spec.commandLine().getErr().println("error: cannot reach " + uri + ": " + e);
        }
        return 1;
    }

    private PrintWriter out() {
        return spec.commandLine().getOut();
    }

    private static void putIfGiven(ObjectNode body, String field, Integer value) {
        if (value != null) {
            body.put(field, value);
        }
    }
}
