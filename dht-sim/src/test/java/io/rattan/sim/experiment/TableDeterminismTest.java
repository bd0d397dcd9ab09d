package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.sim.SimCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./rattan sim opendht-table} is deterministic: the same seed gives the same table.json byte for byte in two
 * separate JVMs, the slow-node trace it wrote replays to the same table (with the model's own slow nodes switched off,
 * which alone gives another table), and another seed gives another table; with
 * churn too, where the trace must also cover the nodes that join. Small (40 nodes, 15 rounds of every mode) so that
 * it runs in seconds.
 */
class TableDeterminismTest {

    @TempDir
    Path dir;

    @Test
    void theSameSeedGivesTheSameTableInSeparateJvmsAndTheTraceReplaysIt() throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Path replay = dir.resolve("replay");
        Path other = dir.resolve("other");
        runInFreshJvm(a, "--seed", "7");
        runInFreshJvm(b, "--seed", "7");
        // Replayed with no slow nodes of the model's own, so a table equal to a's can only come from the trace.
        runInFreshJvm(replay, "--seed", "7", "--slow-fraction", "0", "--trace", a.resolve("trace.txt").toString());
        Path calm = dir.resolve("calm");
        runInFreshJvm(calm, "--seed", "7", "--slow-fraction", "0");
        runInFreshJvm(other, "--seed", "8");
        Path churn = dir.resolve("churn");
        Path churnReplay = dir.resolve("churn-replay");
        runInFreshJvm(churn, "--seed", "7", "--churn", "6:3:3");
        runInFreshJvm(churnReplay, "--seed", "7", "--churn", "6:3:3", "--trace",
                churn.resolve("trace.txt").toString());

        String table = Files.readString(a.resolve("table.json"));
        assertThat(table).contains("\"mode\": \"greedy\"", "\"mode\": \"hedged\"", "\"mode\": \"oracle\"");
        assertThat(Files.readAllBytes(b.resolve("table.json"))).isEqualTo(Files.readAllBytes(a.resolve("table.json")));
        assertThat(Files.readAllBytes(b.resolve("gets.csv"))).isEqualTo(Files.readAllBytes(a.resolve("gets.csv")));
        assertThat(Files.readString(replay.resolve("table.json"))).isEqualTo(table);
        assertThat(Files.readString(calm.resolve("table.json"))).as("the same seed without the trace's slow nodes")
                .isNotEqualTo(table);
        assertThat(Files.readString(other.resolve("table.json"))).isNotEqualTo(table);
        checkTableFiles(a);

        String churned = Files.readString(churn.resolve("table.json"));
        assertThat(churned).isNotEqualTo(table);
        assertThat(Files.readAllBytes(churnReplay.resolve("table.json"))).isEqualTo(churned.getBytes());
        String churnLine = churnLine(churn);
        assertThat(churnLine).containsPattern("churn 6:3:3 per minute: [1-9]\\d* joins");
        assertThat(churnLine(churnReplay)).isEqualTo(churnLine);
    }

    /** table.json, table.csv and cdf.png as the issue and docs/experiments.md describe them. */
    private static void checkTableFiles(Path out) throws IOException {
        List<String> modes = new ArrayList<>();
        OpenDhtTable.standardModes().forEach(m -> modes.add(m.name()));
        assertThat(modes).containsExactly("greedy", "delay-aware", "delay-aware-2gw", "delay-aware-3gw", "iterative-3",
                "iterative-3-2gw", "hedged", "one-hop-hedged");
        modes.add("oracle");

        JsonNode rows = new ObjectMapper().readTree(out.resolve("table.json").toFile());
        assertThat(rows.isArray()).isTrue();
        List<String> seen = new ArrayList<>();
        for (JsonNode row : rows) {
            String mode = row.get("mode").asText();
            seen.add(mode);
            for (String key : List.of("gets", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "failed")) {
                assertThat(row.get(key)).as("%s of %s", key, mode).isNotNull();
                assertThat(row.get(key).isNumber()).as("%s of %s is a number", key, mode).isTrue();
            }
            assertThat(row.get("gets").asInt()).as("gets of %s", mode).isEqualTo(15);
            assertThat(row.get("p50_ms").asDouble()).isPositive();
            assertThat(row.get("p50_ms").asDouble()).isLessThanOrEqualTo(row.get("p90_ms").asDouble());
            assertThat(row.get("p90_ms").asDouble()).isLessThanOrEqualTo(row.get("p99_ms").asDouble());
            assertThat(row.get("p99_ms").asDouble()).isLessThanOrEqualTo(row.get("p999_ms").asDouble());
            // The oracle sends nothing: its cost is null; every mode's is a positive number.
            for (String key : List.of("msgs_per_get", "bytes_per_get")) {
                JsonNode cost = row.get(key);
                assertThat(cost).as("%s of %s", key, mode).isNotNull();
                if (mode.equals("oracle")) {
                    assertThat(cost.isNull()).isTrue();
                } else {
                    assertThat(cost.asDouble()).as("%s of %s", key, mode).isPositive();
                }
            }
        }
        assertThat(seen).containsExactlyElementsOf(modes);

        // get-phase.txt: where the rounds started in the trace's time, as run.txt says, after the 30 s settle.
        long phase = TableFiles.readGetPhase(out.resolve(TableFiles.GET_PHASE_FILE));
        assertThat(phase).isGreaterThanOrEqualTo(OpenDhtTable.SETTLE_NANOS);
        assertThat(Files.readString(out.resolve("run.txt")))
                .contains(String.format(Locale.ROOT, "rounds from %.3f ms of the slow trace's time", phase / 1e6));

        // gets.csv: every get once, and the failed ones are the rows' failed counts.
        List<String> gets = Files.readAllLines(out.resolve("gets.csv"));
        assertThat(gets.get(0)).isEqualTo(GetLog.HEADER);
        assertThat(gets).hasSize(1 + 15 * (modes.size() - 1));
        for (JsonNode row : rows) {
            String mode = row.get("mode").asText();
            List<String[]> lines = gets.stream().skip(1).map(l -> l.split(",")).filter(f -> f[3].equals(mode))
                    .toList();
            assertThat(lines).as("gets.csv lines of %s", mode).hasSize(mode.equals("oracle") ? 0 : 15);
            assertThat(lines.stream().filter(f -> f[5].equals("0")).count()).as("failed gets of %s", mode)
                    .isEqualTo(mode.equals("oracle") ? 0 : row.get("failed").asLong());
        }

        List<String> csv = Files.readAllLines(out.resolve("table.csv"));
        assertThat(csv.get(0)).startsWith("mode,gets,p50_ms,p90_ms,p99_ms,p999_ms,msgs_per_get,bytes_per_get,failed");
        assertThat(csv).hasSize(1 + modes.size());
        for (int i = 0; i < modes.size(); i++) {
            assertThat(csv.get(1 + i)).startsWith(modes.get(i) + ",");
        }

        byte[] png = Files.readAllBytes(out.resolve("cdf.png"));
        assertThat(png).startsWith(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
        assertThat(png.length).isGreaterThan(1000);
    }

    private static String churnLine(Path out) throws IOException {
        return Files.readAllLines(out.resolve("run.txt")).stream().filter(l -> l.startsWith("churn")).findFirst()
                .orElseThrow();
    }

    private static void runInFreshJvm(Path out, String... extra) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Djava.awt.headless=true", "-cp",
                System.getProperty("java.class.path"), SimCli.class.getName(), "opendht-table", "--nodes", "40",
                "--gets", "15", "--values", "10", "--get-minutes", "2", "--no-progress", "--out", out.toString()));
        command.addAll(List.of(extra));
        if (!command.contains("--slow-fraction")) {
            command.addAll(List.of("--slow-fraction", "0.1"));
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
            assertThat(p.exitValue()).as("fork exit code; output:%n%s", output).isZero();
        } finally {
            p.destroyForcibly();
        }
    }
}
