package io.rattan.core.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LatencyMatrixTest {

    private static LatencyMatrix parse(String text) throws IOException {
        return LatencyMatrix.parse(new StringReader(text), "test.tsv");
    }

    @Test
    void planetLabHas490HostsWithTheDocumentedStatistics() {
        LatencyMatrix m = LatencyMatrix.planetLab();
        LatencyMatrix.Summary s = m.summary();

        assertThat(m.hosts()).isEqualTo(490);
        assertThat(s.pairs()).isEqualTo(490L * 489);
        assertThat(s.medianMillis()).isCloseTo(135.0, within(1.0));
        assertThat(s.p99Millis()).isCloseTo(413.0, within(1.0));
        assertThat(s.maxMillis()).isCloseTo(2984.1, within(0.01));
        assertThat(s.minMillis()).isCloseTo(0.086, within(1e-9));
        assertThat(m.rttMillis(0, 0)).isZero();
        assertThat(m.rttMillis(0, 1)).isEqualTo(0.175);
        assertThat(m.rttMillis(1, 0)).isEqualTo(m.rttMillis(0, 1));
    }

    /** The shipped matrix is the file PROVENANCE.md describes, byte for byte, and its licence notice ships beside it. */
    @Test
    void theShippedMatrixIsTheOneItsProvenanceNamesWithItsLicence() throws Exception {
        byte[] tsv;
        String provenance;
        try (InputStream m = LatencyMatrix.class.getResourceAsStream("/io/rattan/core/wan/planetlab490-rtt-ms.tsv");
             InputStream p = LatencyMatrix.class.getResourceAsStream("/io/rattan/core/wan/PROVENANCE.md")) {
            assertThat(m).isNotNull();
            assertThat(p).isNotNull();
            tsv = m.readAllBytes();
            provenance = new String(p.readAllBytes(), StandardCharsets.UTF_8);
        }
        String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(tsv));
        assertThat(provenance).contains("| sha256 | `" + sha256 + "` |")
                .contains("MIT License", "The above copyright notice and this permission notice shall be included");
    }

    @Test
    void loadsAFileAndToleratesCrlfTrailingBlanksSpacesAndABom(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("m.tsv");
        Files.writeString(file, "\uFEFF0\t1.5\t2\r\n1.5 0\t 3e0\r\n\r\n2\t3\t0\t\r\n\n");

        LatencyMatrix m = LatencyMatrix.load(file);

        assertThat(m.hosts()).isEqualTo(3);
        assertThat(m.rttMillis(0, 1)).isEqualTo(1.5);
        assertThat(m.rttMillis(1, 2)).isEqualTo(3.0);
        assertThat(m.rttMillis(2, 0)).isEqualTo(2.0);
    }

    @Test
    void doesNotRequireSymmetry() throws IOException {
        LatencyMatrix m = parse("0\t10\n20\t0\n");

        assertThat(m.rttMillis(0, 1)).isEqualTo(10.0);
        assertThat(m.rttMillis(1, 0)).isEqualTo(20.0);
        assertThat(m.summary().pairs()).isEqualTo(2);
    }

    @Test
    void rejectsANonNumberWithLineAndColumn() {
        assertThatThrownBy(() -> parse("0\t1\t2\n1\t0\tabc\n2\t3\t0\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("test.tsv line 2, column 3")
                .hasMessageContaining("'abc'");
    }

    @Test
    void rejectsNanInfinityAndJavaOnlyNumberForms() {
        assertThatThrownBy(() -> parse("0\tNaN\n1\t0\n")).hasMessageContaining("line 1, column 2");
        assertThatThrownBy(() -> parse("0\t1\nInfinity\t0\n")).hasMessageContaining("line 2, column 1");
        assertThatThrownBy(() -> parse("0\t1d\n1\t0\n")).hasMessageContaining("line 1, column 2");
        assertThatThrownBy(() -> parse("0\t1e999\n1\t0\n")).hasMessageContaining("not a finite number");
        assertThatThrownBy(() -> parse("0\t1..2\n1\t0\n")).hasMessageContaining("line 1, column 2");
    }

    @Test
    void rejectsANegativeRtt() {
        assertThatThrownBy(() -> parse("0\t1\n-0.5\t0\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2, column 1")
                .hasMessageContaining("negative");
    }

    @Test
    void rejectsARaggedRowWithItsLine() {
        assertThatThrownBy(() -> parse("0\t1\t2\n1\t0\n2\t3\t0\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2")
                .hasMessageContaining("expected 3 values");
    }

    @Test
    void rejectsANonSquareMatrix() {
        assertThatThrownBy(() -> parse("0\t1\t2\n1\t0\t3\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 rows but 3 columns");
        assertThatThrownBy(() -> parse("0\t1\n1\t0\n5\t5\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 3")
                .hasMessageContaining("not square");
    }

    @Test
    void rejectsAnEmptyFile() {
        assertThatThrownBy(() -> parse("\n  \n")).hasMessageContaining("no rows");
    }

    @Test
    void lineNumbersCountBlankLines() {
        assertThatThrownBy(() -> parse("0\t1\n\n\nx\t0\n")).hasMessageContaining("line 4, column 1");
    }

    @Test
    void rejectsLookupsOutsideTheMatrix() throws IOException {
        LatencyMatrix m = parse("0\t1\n1\t0\n");

        assertThatThrownBy(() -> m.rttMillis(2, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> m.rttMillis(0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
