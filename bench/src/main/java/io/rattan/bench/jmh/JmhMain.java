package io.rattan.bench.jmh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code ./rattan jmh [PATTERN] [--quick] [--out DIR]}: runs Rattan's JMH suite (the benchmarks whose name matches
 * PATTERN, a regular expression; all by default), writes JMH's results as {@code DIR/jmh.json} and the machine and
 * JVM they ran on as {@code DIR/machine.json}, and prints a table with the RocksDbStore / raw RocksJava throughput
 * ratio. {@code --quick} runs one short iteration of each (a smoke run; its figures mean little).
 */
public final class JmhMain {

    private JmhMain() {
    }

    public static void main(String[] args) throws RunnerException, IOException {
        String pattern = "io\\.rattan\\..*Benchmark.*";
        boolean quick = false;
        Path out = Path.of("jmh-out", Instant.now().toString().replace(':', '-'));
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--out" -> out = Path.of(args[++i]);
                case "-h", "--help" -> {
                    System.out.println("usage: ./rattan jmh [PATTERN] [--quick] [--out DIR]   (PATTERN: a regular "
                            + "expression over benchmark names, e.g. Codec or StoreBenchmark.get)");
                    return;
                }
                default -> pattern = args[i];
            }
        }
        Files.createDirectories(out);
        ChainedOptionsBuilder options = new OptionsBuilder().include(pattern)
                .resultFormat(ResultFormatType.JSON).result(out.resolve("jmh.json").toString());
        if (quick) {
            options.warmupIterations(1).warmupTime(TimeValue.milliseconds(300))
                    .measurementIterations(1).measurementTime(TimeValue.milliseconds(500));
        }
        Files.writeString(out.resolve("machine.json"), machineJson(), StandardCharsets.UTF_8);
        Collection<RunResult> results = new Runner(options.build()).run();
        printTable(results);
        System.out.println("wrote " + out.resolve("jmh.json") + " and " + out.resolve("machine.json"));
    }

    private static void printTable(Collection<RunResult> results) {
        Map<String, Double> scores = new LinkedHashMap<>();
        System.out.printf(Locale.ROOT, "%n%-60s %14s %10s%n", "benchmark", "score", "unit");
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark().replace("io.rattan.", "")
                    + paramsOf(r);
            double score = r.getPrimaryResult().getScore();
            scores.put(name, score);
            System.out.printf(Locale.ROOT, "%-60s %14.1f %10s%n", name, score, r.getPrimaryResult().getScoreUnit());
        }
        for (String op : new String[] {"put", "get", "multiValueGet"}) {
            Double rocks = scores.get("bench.jmh.StoreBenchmark." + op + " store=rocks");
            Double raw = scores.get("bench.jmh.StoreBenchmark." + op + " store=raw");
            if (rocks != null && raw != null && rocks > 0) {
                // Times per operation: throughput ratio is the inverse.
                System.out.printf(Locale.ROOT, "RocksDbStore/raw RocksJava throughput, %s: %.2f (target >= 0.7)%n",
                        op, raw / rocks);
            }
        }
    }

    private static String paramsOf(RunResult r) {
        StringBuilder s = new StringBuilder();
        for (String key : r.getParams().getParamsKeys()) {
            s.append(' ').append(key).append('=').append(r.getParams().getParam(key));
        }
        return s.toString();
    }

    /** What the figures ran on: cores, processor, memory, OS and JVM. */
    static String machineJson() throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
        m.put("cpu", cpuModel());
        m.put("memTotal", firstLineStartingWith(Path.of("/proc/meminfo"), "MemTotal:"));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("date", Instant.now().toString());
        StringBuilder json = new StringBuilder("{\n");
        int i = 0;
        for (Map.Entry<String, String> e : m.entrySet()) {
            json.append("  \"").append(e.getKey()).append("\": \"")
                    .append(e.getValue().replace("\\", "\\\\").replace("\"", "\\\"")).append('"')
                    .append(++i < m.size() ? ",\n" : "\n");
        }
        return json.append("}\n").toString();
    }

    private static String cpuModel() throws IOException {
        String line = firstLineStartingWith(Path.of("/proc/cpuinfo"), "model name");
        int colon = line.indexOf(':');
        return colon < 0 ? line : line.substring(colon + 1).trim();
    }

    private static String firstLineStartingWith(Path file, String prefix) throws IOException {
        if (!Files.isReadable(file)) {
            return "unknown";
        }
        try (var lines = Files.lines(file)) {
            return lines.filter(l -> l.startsWith(prefix)).findFirst().orElse("unknown").replaceAll("\\s+", " ");
        }
    }
}
