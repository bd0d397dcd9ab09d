package io.rattan.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.util.Environment;

/** The launcher's one extraction of RocksDB's library, against a jar made here. */
class NativeLibrariesTest {

    @TempDir
    Path dir;

    private final String name = Environment.getJniLibraryFileName("rocksdb");

    @Test
    void theLibraryIsExtractedOnceBesideTheJarAndNamedOnTheLibraryPath() throws IOException {
        Path jar = jarHolding(name, "library bytes");

        Path lib = NativeLibraries.extracted(jar).resolve(name);
        assertThat(lib).hasContent("library bytes");
        assertThat(lib.getParent()).isEqualTo(dir.resolve("node-native"));
        Files.setLastModifiedTime(lib, FileTime.fromMillis(1_000));

        assertThat(NativeLibraries.flag(jar, List.of("-XX:+UseSerialGC")))
                .contains("-Djava.library.path=" + lib.getParent());
        assertThat(Files.getLastModifiedTime(lib).toMillis()).as("not extracted again").isEqualTo(1_000);
        try (var files = Files.list(lib.getParent())) {
            assertThat(files).as("no temporary file left").containsExactly(lib);
        }

        NativeLibraries.delete(jar);
        assertThat(lib.getParent()).doesNotExist();
    }

    @Test
    void aLibraryPathAmongTheFlagsOrAJarWithoutTheLibraryLeavesRocksJavaToItself() throws IOException {
        Path jar = jarHolding("something-else.so", "x");

        assertThat(NativeLibraries.flag(jar, List.of())).isEmpty();
        assertThat(NativeLibraries.flag(jarHolding(name, "y"), List.of("-Djava.library.path=/opt/lib"))).isEmpty();
    }

    private Path jarHolding(String entry, String content) throws IOException {
        Path jar = dir.resolve("node.jar");
        try (OutputStream out = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(out)) {
            zip.putNextEntry(new ZipEntry(entry));
            zip.write(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            zip.closeEntry();
        }
        return jar;
    }
}
