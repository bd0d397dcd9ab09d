package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.rattan.node.NodeOptions;
import io.rattan.node.RattanNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard and the Prometheus alert rules in {@code deploy/observability/} name only metrics, and labels
 * of them, that a real node exports: every {@code rattan_*} name in their expressions is a sample name in a node's
 * {@code /metrics} after a put and a get, and every label a selector matches on is one of that metric's labels. A
 * metric renamed in code fails here, not on an operator's empty panel. The rules are well formed (name, expression,
 * severity, summary).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ObservabilityFilesTest {

    private static final Pattern METRIC = Pattern.compile("\\b(rattan_[a-z0-9_]+)(\\{([^}]*)})?");
    private static final Pattern LABEL = Pattern.compile("([a-z_]+)\\s*(=~|!~|!=|=)");

    @TempDir
    Path dir;

    @Test
    void theDashboardAndTheAlertsNameOnlyWhatANodeExports() throws Exception {
        Path files = DeployFilesTest.deployDir().resolve("observability");
        List<String> exprs = new ArrayList<>();
        collectExprs(new ObjectMapper().readTree(files.resolve("rattan-dashboard.json").toFile()), exprs);
        int dashboardExprs = exprs.size();
        assertThat(dashboardExprs).as("the dashboard's queries").isGreaterThan(10);

        JsonNode rules = new YAMLMapper().readTree(files.resolve("rattan-alerts.yml").toFile());
        Set<String> names = new HashSet<>();
        for (JsonNode group : rules.get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                String alert = rule.path("alert").asText();
                assertThat(alert).as("an alert's name").matches("Rattan[A-Za-z]+");
                assertThat(names.add(alert)).as("%s named once", alert).isTrue();
                assertThat(rule.path("labels").path("severity").asText()).as(alert)
                        .isIn("critical", "warning", "info");
                assertThat(rule.path("annotations").path("summary").asText()).as(alert).isNotBlank();
                exprs.add(rule.path("expr").asText());
            }
        }
        assertThat(exprs.size() - dashboardExprs).as("the alert rules").isGreaterThan(5);

        Map<String, Set<String>> exported = scrapeANode();
        for (String expr : exprs) {
            Matcher m = METRIC.matcher(expr);
            boolean any = false;
            while (m.find()) {
                any = true;
                String metric = m.group(1);
                assertThat(exported).as("%s, in %s", metric, expr).containsKey(metric);
                if (m.group(3) != null) {
                    Matcher l = LABEL.matcher(m.group(3));
                    while (l.find()) {
                        if (!l.group(1).equals("instance")) {
                            assertThat(exported.get(metric)).as("label %s of %s, in %s", l.group(1), metric, expr)
                                    .contains(l.group(1));
                        }
                    }
                }
            }
            assertThat(any).as("a Rattan metric in %s", expr).isTrue();
        }
    }

    /** Each sample name of a real node's {@code /metrics} after a put and a get, with its label names. */
    private Map<String, Set<String>> scrapeANode() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try (RattanNode node = RattanNode.start(NodeOptions.singleNode(dir))) {
            String base = "http://127.0.0.1:" + node.httpAddress().getPort();
            String key = base + "/v1/keys/" + "d4".repeat(20);
            assertThat(http.send(HttpRequest.newBuilder(URI.create(key + "?ttl=60"))
                    .POST(HttpRequest.BodyPublishers.ofString("v")).build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).isEqualTo(201);
            assertThat(http.send(HttpRequest.newBuilder(URI.create(key)).build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).isEqualTo(200);
            String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Map<String, Set<String>> out = new HashMap<>();
            for (String line : metrics.split("\n")) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int brace = line.indexOf('{');
                int space = line.indexOf(' ');
                int end = brace >= 0 && brace < space ? brace : space;
                Set<String> labels = out.computeIfAbsent(line.substring(0, end), n -> new HashSet<>());
                if (end == brace) {
                    Matcher l = Pattern.compile("([a-z_]+)=\"").matcher(line.substring(brace, line.indexOf('}')));
                    while (l.find()) {
                        labels.add(l.group(1));
                    }
                }
            }
            return out;
        }
    }

    private static void collectExprs(JsonNode n, List<String> into) {
        if (n.isObject()) {
            n.fields().forEachRemaining(e -> {
                if (e.getKey().equals("expr")) {
                    into.add(e.getValue().asText());
                } else {
                    collectExprs(e.getValue(), into);
                }
            });
        } else if (n.isArray()) {
            n.forEach(c -> collectExprs(c, into));
        }
    }
}
