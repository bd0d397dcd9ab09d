package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

/** {@code --log-format}: text lines start with an ISO-8601 time; json writes one object per line. */
// It swaps System.out and resets the logging of the whole JVM: nothing may run beside it.
@Isolated
class LogFormatTest {

    private static String logged(String... args) throws Exception {
        NodeCommand node = (NodeCommand) RattanCli.commandLine().parseArgs(args).subcommand().commandSpec()
                .userObject();
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            node.logging().apply(Level.WARN);
            LoggerFactory.getLogger("io.rattan.test").warn("hello {}", "logs");
        } finally {
            System.setOut(saved);
            // Back to the built-in configuration for the tests after this one.
            context.reset();
            new ContextInitializer(context).autoConfig();
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void textLinesCarryTheDateAndJsonLinesAreObjects() throws Exception {
        List<String> text = Arrays.asList(logged("node").split("\n"));
        assertThat(text).anySatisfy(l -> assertThat(l)
                .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2}) \\[.*\\] WARN .*hello logs"));

        List<String> json = Arrays.asList(logged("node", "--log-format", "JSON").split("\n"));
        assertThat(json).anySatisfy(l -> assertThat(l).startsWith("{").endsWith("}")
                .contains("\"level\":\"WARN\"", "\"loggerName\":\"io.rattan.test\"", "\"formattedMessage\":\"hello logs\""));
    }

    @Test
    void anUnknownFormatIsAUsageError() {
        java.io.StringWriter err = new java.io.StringWriter();
        int exit = RattanCli.run(new String[] {"node", "--log-format", "xml", "--print-config"}, java.util.Map.of(),
                new java.io.PrintWriter(new java.io.StringWriter()), new java.io.PrintWriter(err, true));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("expected text or json, got 'xml'");
    }
}
