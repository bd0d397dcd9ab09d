package io.rattan.bench.harness;

import io.rattan.api.Address;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes' own counters, read from their {@code /metrics} before and after the load and kept as text under
 * {@code RUN_DIR/metrics/} ({@code start-<i>.prom}, {@code end-<i>.prom}), so a report counts what the nodes say
 * they did, not what the harness thinks it asked.
 */
final class NodeScrape {

    static final String DIR = "metrics";

    private NodeScrape() {
    }

    /** Saves each node's /metrics as {@code <phase>-<i>.prom}; a node that does not answer is left out. */
    static void scrape(List<Address> httpNodes, Path runDir, String phase, Appendable log) throws IOException {
        Path dir = Files.createDirectories(runDir.resolve(DIR));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (int i = 0; i < httpNodes.size(); i++) {
            URI uri = URI.create("http://" + httpNodes.get(i) + "/metrics");
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    Files.writeString(dir.resolve(phase + "-" + i + ".prom"), r.body(), StandardCharsets.UTF_8);
                } else {
                    log.append("metrics of node ").append(String.valueOf(i)).append(": HTTP ")
                            .append(String.valueOf(r.statusCode())).append('\n');
                }
            } catch (IOException e) {
                log.append("metrics of node ").append(String.valueOf(i)).append(": ").append(e.toString())
                        .append('\n');
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Parses Prometheus text: each sample line {@code name{labels} value} becomes an entry keyed by
     * {@code name{labels}} exactly as written; comments and malformed lines are skipped.
     */
    static Map<String, Double> parse(String text) {
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            if (space <= 0) {
                continue;
            }
            try {
                samples.put(line.substring(0, space).trim(), Double.parseDouble(line.substring(space + 1).trim()));
            } catch (NumberFormatException e) {
                // Not a sample we can use (e.g. a timestamped line); the report does without it.
            }
        }
        return samples;
    }

    /** Sum of the samples of metric {@code name} whose labels contain every one of {@code labels}. */
    static double sum(Map<String, Double> samples, String name, String... labels) {
        double total = 0;
        for (Map.Entry<String, Double> e : samples.entrySet()) {
            String key = e.getKey();
            int brace = key.indexOf('{');
            String metric = brace < 0 ? key : key.substring(0, brace);
            if (!metric.equals(name)) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= key.contains(label);
            }
            if (all && !e.getValue().isNaN()) {
                total += e.getValue();
            }
        }
        return total;
    }
}
