package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.core.node.NodeConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --leaf-set-half} and {@code --replicas} of the table: a real cluster's configuration, simulated. */
class TableConfigOptionTest {

    private static NodeConfig configOf(String... args) {
        OpenDhtTableCommand table = new OpenDhtTableCommand();
        new CommandLine(table).parseArgs(args);
        return table.nodeConfig();
    }

    @Test
    void theStudysConfigurationByDefaultAndACapAtTheLeafSet() {
        assertThat(configOf()).isEqualTo(OpenDhtTable.experimentConfig());
        assertThat(configOf().replicas()).isEqualTo(8);

        NodeConfig small = configOf("--leaf-set-half", "2");
        assertThat(small.leafSetHalf()).isEqualTo(2);
        assertThat(small.replicas()).as("k capped at the leaf set").isEqualTo(3);
        assertThat(small.writeQuorum()).isEqualTo(2);
        assertThat(small.requestTimeoutMillis()).isEqualTo(OpenDhtTable.experimentConfig().requestTimeoutMillis());

        assertThat(configOf("--leaf-set-half", "4", "--replicas", "4").replicas()).isEqualTo(4);
    }

    @Test
    void aReplicaCountTheLeafSetCannotHoldIsAUsageError() {
        assertThatThrownBy(() -> configOf("--leaf-set-half", "2", "--replicas", "8"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--leaf-set-half and --replicas")
                .hasMessageContaining("leafSetHalf+1");

        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new OpenDhtTableCommand());
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("--leaf-set-half", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("leafSetHalf must be 1..32");
        assertThat(cli.getUsageMessage()).contains("--leaf-set-half=N", "--replicas=K");
    }
}
