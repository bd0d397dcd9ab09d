package io.rattan.node.gateway.permanent;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.SecretBinding;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway's list of permanent values on disk: what is written reads back, a damaged file is skipped. */
class PermanentListTest {

    @TempDir
    Path dir;

    private static KeptValue value(String name, String data) {
        Id key = Id.ofName(name);
        Bytes v = Bytes.utf8(data);
        return new KeptValue(key, v, 60, SecretBinding.of(Bytes.utf8("secret"), key, v.sha256()));
    }

    @Test
    void writtenValuesReadBackAndDroppedOnesDoNot() throws Exception {
        PermanentList list = new PermanentList(dir.resolve("permanent"));
        assertThat(list.load(100)).isEmpty();
        KeptValue a = value("a", "alpha");
        KeptValue b = value("b", "beta");
        list.write(a);
        list.write(b);
        list.write(a);
        assertThat(list.load(100)).containsExactlyInAnyOrder(a, b);
        list.delete(b);
        list.delete(b);
        assertThat(new PermanentList(dir.resolve("permanent")).load(100)).containsExactly(a);
    }

    @Test
    void aDamagedFileIsSkippedNotHalfRead() throws Exception {
        PermanentList list = new PermanentList(dir);
        KeptValue a = value("a", "alpha");
        KeptValue b = value("b", "beta");
        list.write(a);
        list.write(b);
        byte[] bytes = Files.readAllBytes(dir.resolve(b.fileName()));
        bytes[bytes.length - 6] ^= 1;
        Files.write(dir.resolve(b.fileName()), bytes);
        Files.write(dir.resolve(value("c", "gamma").fileName()), new byte[] {'R', 'P', 'V', '1', 0});
        Files.write(dir.resolve(value("d", "delta").fileName() + ".tmp"), new byte[] {1, 2, 3});
        assertThat(list.load(100)).containsExactly(a);
        // Set aside, not read again; a crash's half-written file is gone.
        assertThat(Files.exists(dir.resolve(b.fileName() + ".bad"))).isTrue();
        assertThat(Files.exists(dir.resolve(value("d", "delta").fileName() + ".tmp"))).isFalse();
        assertThat(list.load(100)).containsExactly(a);
        assertThat(list.load(0)).isEmpty();
    }

    @Test
    void theFormatRoundTripsEveryField() {
        KeptValue a = value("a", "x".repeat(1024));
        byte[] encoded = PermanentList.encode(a);
        assertThat(PermanentList.decode(encoded)).isEqualTo(a);
        byte[] truncated = java.util.Arrays.copyOf(encoded, encoded.length - 1);
        assertThat(PermanentList.decode(truncated)).isNull();
    }
}
