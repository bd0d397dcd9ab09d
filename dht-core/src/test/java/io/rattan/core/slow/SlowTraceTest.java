package io.rattan.core.slow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlowTraceTest {

    private static String write(List<SlowPeriod> periods) throws IOException {
        StringWriter out = new StringWriter();
        SlowTrace.write(periods, out);
        return out.toString();
    }

    private static List<SlowPeriod> read(String text) throws IOException {
        return SlowTrace.read(new StringReader(text));
    }

    @Test
    void aFileRoundTripsExactly(@TempDir Path dir) throws IOException {
        List<SlowPeriod> periods = List.of(
                new SlowPeriod(3, 0, 1, new Distribution.Fixed(0.1)),
                new SlowPeriod(0, 123_456_789_012L, 223_456_789_013L, new Distribution.Pareto(0.001, 3e-5, 1e9)));
        Path file = dir.resolve("slow.trace");

        SlowTrace.write(periods, file);

        assertThat(SlowTrace.read(file)).isEqualTo(periods);
    }

    @Test
    void writesMillisecondsWithoutTrailingZerosAndAHeader() throws IOException {
        String text = write(List.of(
                new SlowPeriod(17, 0, 1_893_021_442_817L, new Distribution.Pareto(50, 1.2, 30_000)),
                new SlowPeriod(4, 61_000_000_000L, 75_000_500_000L, new Distribution.Fixed(250)),
                new SlowPeriod(4, 61_000_000_000L, 75_000_500_000L, new Distribution.Drop(1e-4))));

        assertThat(text.lines().findFirst()).hasValue(SlowTrace.HEADER);
        assertThat(text).contains("\n17 0 1893021.442817 pareto 50.0 1.2 30000.0\n")
                .contains("\n4 61000 75000.5 fixed 250.0\n")
                .contains("\n4 61000 75000.5 drop 1.0E-4\n");
    }

    @Test
    void readsAHandWrittenTraceWithCommentsTabsAndBlankLines() throws IOException {
        String text = "\n#  rattan-slow-trace   v1\n"
                + "# a hand-edited trace\n"
                + "\n"
                + "17\t0\t1893021.442817\tpareto 50 1.2 30000   # the usual\n"
                + "  4 61000 75000.5 fixed 250\n"
                + "4 61000 75000.5 drop .05\n";

        assertThat(read(text)).containsExactly(
                new SlowPeriod(17, 0, 1_893_021_442_817L, new Distribution.Pareto(50, 1.2, 30_000)),
                new SlowPeriod(4, 61_000_000_000L, 75_000_500_000L, new Distribution.Fixed(250)),
                new SlowPeriod(4, 61_000_000_000L, 75_000_500_000L, new Distribution.Drop(0.05)));
    }

    @Test
    void anEmptyScheduleIsJustTheHeader() throws IOException {
        assertThat(read(write(List.of()))).isEmpty();
    }

    @Test
    void rejectsAMissingOrForeignHeader() {
        assertThatThrownBy(() -> read("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected the header");
        assertThatThrownBy(() -> read("1 0 5 fixed 1\n")).hasMessageContaining("line 1")
                .hasMessageContaining("expected the header");
        assertThatThrownBy(() -> read("# some other file\n")).hasMessageContaining("expected the header");
        assertThatThrownBy(() -> read("\n# rattan-slow-trace v2\n")).hasMessageContaining("line 2")
                .hasMessageContaining("unsupported format version 'v2'");
    }

    @Test
    void rejectsMalformedLinesWithTheirLineNumber() {
        String h = SlowTrace.HEADER + "\n# comment\n1 0 5 fixed 1\n";
        assertRejected(h + "1 0 5 sleepy 1\n", "line 4", "unknown effect 'sleepy'");
        assertRejected(h + "1 0 5 pareto 50 1.2\n", "line 4", "takes 3 parameters, got 2");
        assertRejected(h + "1 0 5\n", "line 4", "expected 'node start_ms end_ms effect parameters'");
        assertRejected(h + "1 0 5 fixed\n", "line 4", "takes 1 parameter, got 0");
        assertRejected(h + "1 0 5 drop 0.1 0.2\n", "line 4", "takes 1 parameter, got 2");
        assertRejected(h + "-1 0 5 fixed 1\n", "line 4", "node must be a non-negative integer");
        assertRejected(h + "99999999999 0 5 fixed 1\n", "line 4", "node out of range");
        assertRejected(h + "1 0.0000001 5 fixed 1\n", "line 4", "at most 6 digits");
        assertRejected(h + "1 1e3 5 fixed 1\n", "line 4", "start_ms");
        assertRejected(h + "1 99999999999999999 999999999999999999 fixed 1\n", "line 4", "out of range");
        assertRejected(h + "1 5 5 fixed 1\n", "line 4", "must end after it starts");
        assertRejected(h + "1 0 5 fixed NaN\n", "line 4", "not a decimal number");
        assertRejected(h + "1 0 5 fixed -2\n", "line 4", "fixed ms must be");
        assertRejected(h + "1 0 5 pareto 0 1.2 100\n", "line 4", "pareto min_ms");
        assertRejected(h + "1 0 5 drop 2\n", "line 4", "drop probability");
        assertRejected(h + "\n\n1 0 5 fixed x\n", "line 6", "not a decimal number");
    }

    private static void assertRejected(String text, String line, String reason) {
        assertThatThrownBy(() -> read(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slow trace " + line + ":")
                .hasMessageContaining(reason);
    }
}
