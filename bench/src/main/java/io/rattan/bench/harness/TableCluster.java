package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.bench.cluster.ClusterFiles;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A running local cluster as {@code bench table} needs it: each node's binary gateway, HTTP address and contact (its
 * id from {@code GET /node}, so that a one-hop client can name it), the replicas per key, and the slow trace the
 * nodes replay, if any. Node i is line i of {@code D/gateways.txt}, as for the simulator's node i.
 */
record TableCluster(List<Address> gateways, List<Address> http, List<Contact> contacts, int replicas,
                    long requestTimeoutNanos, ClientWan wan, Path slowTrace) {

    private static final String SLOW_TRACE = "--slow-trace";

    /**
     * Reads the cluster in {@code dir} and asks each node who it is; an {@link IOException} says what is wrong
     * (no such cluster, a node that does not answer or has not joined) and what to do.
     */
    static TableCluster read(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException("--cluster " + dir + " is not a directory: start one with 'rattan cluster start "
                    + "--nodes N --dir " + dir + "'");
        }
        List<ClusterFiles.NodeAddresses> nodes = ClusterFiles.nodes(dir);
        List<String> options = ClusterFiles.nodeOptions(dir);
        if (nodes.size() < 2) {
            throw new IOException("the cluster in " + dir + " has " + nodes.size() + " node(s); the table needs 2");
        }
        List<Address> gateways = new ArrayList<>();
        List<Address> http = new ArrayList<>();
        List<Contact> contacts = new ArrayList<>();
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < nodes.size(); i++) {
            ClusterFiles.NodeAddresses n = nodes.get(i);
            JsonNode status = nodeStatus(client, json, i, n.http(), dir);
            gateways.add(n.rpc());
            http.add(n.http());
            contacts.add(new Contact(Id.fromHex(status.path("id").asText()),
                    Address.parse(status.path("address").asText()), n.rpc().port()));
        }
        String trace = option(options, SLOW_TRACE);
        ClientWan wan;
        try {
            wan = ClientWan.of(options, nodes.size());
        } catch (IllegalArgumentException e) {
            throw new IOException("the cluster in " + dir + " emulates a wide area this run cannot: " + e.getMessage(),
                    e);
        }
        return new TableCluster(gateways, http, contacts, replicas(options), requestTimeoutNanos(options), wan,
                trace == null ? null : Path.of(trace));
    }

    int size() {
        return gateways.size();
    }

    private static JsonNode nodeStatus(HttpClient client, ObjectMapper json, int i, Address http, Path dir)
            throws IOException {
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://" + http + "/node"))
                .timeout(Duration.ofSeconds(10)).GET().build();
        JsonNode body;
        try {
            HttpResponse<String> r = client.send(get, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("node " + i + " (" + http + ") answered GET /node with " + r.statusCode());
            }
            body = json.readTree(r.body());
        } catch (IOException e) {
            throw new IOException("node " + i + " of the cluster in " + dir + " does not answer at " + http + " ("
                    + e.getMessage() + "): is it running? ('rattan cluster status --dir " + dir + "')", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while asking node " + i + " who it is", e);
        }
        if (!body.path("joined").asBoolean(false)) {
            throw new IOException("node " + i + " (" + http + ") has not joined the overlay yet");
        }
        return body;
    }

    /** The cluster's k: {@code --replicas}, else the node's default for its leaf set (as {@code rattan node}). */
    private static int replicas(List<String> options) {
        String k = option(options, "--replicas");
        if (k != null) {
            return Integer.parseInt(k);
        }
        String half = option(options, "--leaf-set-half");
        int leafSetHalf = half == null ? NodeConfig.defaults().leafSetHalf() : Integer.parseInt(half);
        return Math.min(NodeConfig.defaults().replicas(), leafSetHalf + 1);
    }

    /**
     * The nodes' {@code --request-timeout-ms}: a failed get counts at it and a put is waited for until it ends, as in
     * the simulator, whose clients share its nodes' configuration.
     */
    private static long requestTimeoutNanos(List<String> options) {
        String ms = option(options, "--request-timeout-ms");
        return (ms == null ? NodeConfig.defaults().requestTimeoutMillis() : Long.parseLong(ms)) * 1_000_000L;
    }

    /** The value of {@code name} among node options ({@code --name V} or {@code --name=V}), or null. */
    static String option(List<String> options, String name) {
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i);
            if (o.equals(name) && i + 1 < options.size()) {
                return options.get(i + 1);
            }
            if (o.startsWith(name + "=")) {
                return o.substring(name.length() + 1);
            }
        }
        return null;
    }
}
