package io.rattan.core.behaviour;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The virtual world replays exactly from its seed: in one JVM, and across separate JVM processes. */
class DeterministicTraceTest {

    private static final long SEED = 20261123L;

    @Test
    void theSameSeedGivesTheSameTraceInSeparateJvms() throws Exception {
        String here = TraceScenario.run(SEED);
        String forkA = runInFreshJvm(SEED);
        String forkB = runInFreshJvm(SEED);
        assertThat(forkA).isEqualTo(here);
        assertThat(forkB).isEqualTo(here);
    }

    @Test
    void anotherSeedGivesAnotherTrace() {
        assertThat(TraceScenario.run(SEED + 1)).isNotEqualTo(TraceScenario.run(SEED));
    }

    private static String runInFreshJvm(long seed) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                TraceScenario.class.getName(), Long.toString(seed))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
            assertThat(p.exitValue()).as("fork exit code; output: %s", out).isZero();
            String[] lines = out.strip().split("\n");
            return lines[lines.length - 1];
        } finally {
            p.destroyForcibly();
        }
    }
}
