package io.rattan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.node.cli.RattanCli;
import io.rattan.sim.SimCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every {@code --help} the launcher can show renders cleanly — the node's commands, the simulator's, and this
 * module's {@code cluster} and {@code bench}: picocli formats each description with {@code String.format}, and a
 * stray {@code %} made it print a warning before the help.
 */
class HelpTextTest {

    @Test
    void everyCommandsHelpRendersWithoutWarnings() {
        List<String> rendered = new ArrayList<>();
        PrintStream err = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
        try {
            render(BenchCli.commandLine(), rendered);
            render(RattanCli.commandLine(), rendered);
            render(new CommandLine(new SimCli()), rendered);
        } finally {
            System.setErr(err);
        }
        assertThat(rendered).as("commands rendered").contains("rattan cluster start",
                "rattan bench run", "rattan node", "rattan get", "rattan sim faults");
        assertThat(warnings.toString(StandardCharsets.UTF_8)).as("what picocli printed while rendering").isEmpty();
    }

    private static void render(CommandLine cl, List<String> rendered) {
        StringWriter out = new StringWriter();
        cl.usage(new PrintWriter(out));
        assertThat(out.toString()).as("help of %s", cl.getCommandSpec().qualifiedName()).contains("Usage:");
        rendered.add(cl.getCommandSpec().qualifiedName());
        for (CommandLine sub : cl.getSubcommands().values()) {
            render(sub, rendered);
        }
    }
}
