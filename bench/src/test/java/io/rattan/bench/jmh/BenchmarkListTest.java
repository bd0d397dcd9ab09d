package io.rattan.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The JMH suite is compiled into the list that {@code ./rattan jmh} runs: every benchmark the issue names. */
class BenchmarkListTest {

    @Test
    void theSuiteListsEveryBenchmark() throws IOException {
        String list;
        try (InputStream in = JmhMain.class.getResourceAsStream("/META-INF/BenchmarkList")) {
            assertThat(in).as("JMH's annotation processor ran").isNotNull();
            list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String benchmark : List.of("bench.jmh.CodecBenchmark.encode", "bench.jmh.CodecBenchmark.decode",
                "bench.jmh.NextHopBenchmark.delayAware", "bench.jmh.NextHopBenchmark.rttEstimatorUpdate",
                "bench.jmh.StoreBenchmark.put", "bench.jmh.StoreBenchmark.multiValueGet",
                "bench.jmh.StoreBenchmark.getWithSecret", "bench.jmh.StoreBenchmark.multiValueGetWithSecret",
                "bench.jmh.LoopbackGetBenchmark.get")) {
            int dot = benchmark.lastIndexOf('.');
            // An entry reads "<class> S <n> <generated class> S <n> <method> ...".
            Pattern entry = Pattern.compile(Pattern.quote("io.rattan." + benchmark.substring(0, dot))
                    + " S \\d+ \\S+ S \\d+ " + Pattern.quote(benchmark.substring(dot + 1)) + " ");
            assertThat(entry.matcher(list).find()).as(benchmark).isTrue();
        }
    }

    @Test
    void theMachineRecordNamesCoresAndJvm() throws IOException {
        assertThat(JmhMain.machineJson())
                .contains("\"cores\": \"" + Runtime.getRuntime().availableProcessors() + "\"")
                .contains("\"java\": ");
    }
}
