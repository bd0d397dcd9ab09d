package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code --churn JOINS:LEAVES:CRASHES} as picocli parses it: good values, and a clear error for bad ones. */
class ChurnOptionTest {

    @Test
    void churnIsOffByDefaultAndParsesThreeDecimalRates() {
        OpenDhtTableCommand off = new OpenDhtTableCommand();
        new CommandLine(off).parseArgs();
        assertThat(off.churn).isEqualTo(Churn.NONE);
        assertThat(off.churn.isOff()).isTrue();

        OpenDhtTableCommand on = new OpenDhtTableCommand();
        new CommandLine(on).parseArgs("--churn", "2:1:0.5");
        assertThat(on.churn).isEqualTo(new Churn(2, 1, 0.5));
        assertThat(on.churn.isOff()).isFalse();
        assertThat(on.churn).hasToString("2:1:0.5");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1:2           | expected JOINS:LEAVES:CRASHES",
        "1:2:3:4       | expected JOINS:LEAVES:CRASHES",
        "''            | expected JOINS:LEAVES:CRASHES",
        "a:1:1         | joins per minute is not a number: 'a'",
        "1::1          | leaves per minute is not a number: ''",
        "-1:0:0        | joins per minute must be between 0 and 1000, got -1.0",
        "0:0:-0.5      | crashes per minute must be between 0 and 1000, got -0.5",
        "NaN:0:0       | joins per minute must be between 0 and 1000, got NaN",
        "0:5000:0      | leaves per minute must be between 0 and 1000, got 5000.0",
    })
    void badValuesAreRejectedWithTheReason(String value, String reason) {
        assertThatThrownBy(() -> new CommandLine(new OpenDhtTableCommand()).parseArgs("--churn", value))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--churn")
                .hasMessageContaining(reason);
    }

    @Test
    void aBadValueExitsWithUsageErrorAndTheHelpDocumentsTheOption() {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new OpenDhtTableCommand());
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("--churn", "-1:0:0")).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--churn'", "must be between 0 and 1000");

        String help = cli.getUsageMessage();
        assertThat(help).contains("--churn=JOINS:LEAVES:CRASHES", "events per minute", "graceful leaves",
                "default: 0:0:0");
    }
}
