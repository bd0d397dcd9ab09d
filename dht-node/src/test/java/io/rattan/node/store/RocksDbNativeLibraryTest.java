package io.rattan.node.store;

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

/** The one extraction of RocksDB's library: beside a jar (one made here), and from the class path. */
class RocksDbNativeLibraryTest {

    @TempDir
    Path dir;

    private final String name = RocksDbNativeLibrary.fileName();

    @Test
    void theLibraryIsExtractedOnceBesideTheJarAndNamedOnTheLibraryPath() throws IOException {
        Path jar = jarHolding(name, "library bytes");

        Path lib = RocksDbNativeLibrary.extracted(jar).resolve(name);
        assertThat(lib).hasContent("library bytes");
        assertThat(lib.getParent()).isEqualTo(dir.resolve("node-native"));
        Files.setLastModifiedTime(lib, FileTime.fromMillis(1_000));

        assertThat(RocksDbNativeLibrary.flag(jar, List.of("-XX:+UseSerialGC")))
                .contains("-Djava.library.path=" + lib.getParent());
        assertThat(Files.getLastModifiedTime(lib).toMillis()).as("not extracted again").isEqualTo(1_000);
        try (var files = Files.list(lib.getParent())) {
            assertThat(files).as("no temporary file left").containsExactly(lib);
        }

        RocksDbNativeLibrary.delete(jar);
        assertThat(lib.getParent()).doesNotExist();
    }

    @Test
    void aLibraryPathAmongTheFlagsOrAJarWithoutTheLibraryLeavesRocksJavaToItself() throws IOException {
        Path jar = jarHolding("something-else.so", "x");

        assertThat(RocksDbNativeLibrary.flag(jar, List.of())).isEmpty();
        assertThat(RocksDbNativeLibrary.flag(jarHolding(name, "y"), List.of("-Djava.library.path=/opt/lib"))).isEmpty();
    }

    @Test
    void theLibraryIsCopiedOnceFromTheClassPath() throws IOException {
        Path nativeDir = dir.resolve("native");

        Path lib = RocksDbNativeLibrary.extractedFromClassPath(nativeDir).resolve(name);
        assertThat(lib).isRegularFile();
        assertThat(Files.size(lib)).isPositive();
        Files.setLastModifiedTime(lib, FileTime.fromMillis(1_000));

        assertThat(RocksDbNativeLibrary.extractedFromClassPath(nativeDir)).isEqualTo(nativeDir);
        assertThat(Files.getLastModifiedTime(lib).toMillis()).as("not copied again").isEqualTo(1_000);
        try (var files = Files.list(nativeDir)) {
            assertThat(files).as("no temporary file left").containsExactly(lib);
        }
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
