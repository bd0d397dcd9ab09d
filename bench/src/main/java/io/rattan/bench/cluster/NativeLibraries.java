package io.rattan.bench.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.rocksdb.util.Environment;

/**
 * RocksDB's JNI library, extracted from the node jar once into a directory beside the jar, so that node JVMs load
 * it from there ({@code -Djava.library.path}) instead of each inflating its 14 MB into a new file under
 * {@code /tmp}, RocksJava's fallback: that cost every node CPU at start, while 16 JVMs share two cores, and left one
 * file behind per node process (the node exits without running {@code deleteOnExit}).
 */
final class NativeLibraries {

    static final String DIR_SUFFIX = "-native";

    private NativeLibraries() {
    }

    /**
     * The flag that points a node JVM at the extracted library; empty when the JVM flags already set a library path,
     * or when the library cannot be extracted (the node then falls back to RocksJava's own extraction).
     */
    static Optional<String> flag(Path jar, List<String> jvmArgs) {
        if (jvmArgs.stream().anyMatch(a -> a.startsWith("-Djava.library.path="))) {
            return Optional.empty();
        }
        try {
            return Optional.of("-Djava.library.path=" + extracted(jar));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The directory holding {@code jar}'s RocksDB library for this platform, extracted first when missing. */
    static Path extracted(Path jar) throws IOException {
        String name = Environment.getJniLibraryFileName("rocksdb");
        Path dir = directoryOf(jar);
        Path lib = dir.resolve(name);
        if (Files.isRegularFile(lib)) {
            return dir;
        }
        Files.createDirectories(dir);
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry entry = zip.getEntry(name);
            if (entry == null) {
                throw new IOException(jar + " holds no " + name);
            }
            // Written under a name of its own, then renamed: a JVM starting meanwhile never maps half a library.
            Path tmp = Files.createTempFile(dir, name, ".tmp");
            try {
                try (InputStream in = zip.getInputStream(entry)) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                }
                Files.move(tmp, lib, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        return dir;
    }

    /** Where {@code jar}'s libraries go: a directory named after the jar, beside it. */
    static Path directoryOf(Path jar) {
        String stem = jar.getFileName().toString().replaceFirst("\\.jar$", "");
        return jar.toAbsolutePath().resolveSibling(stem + DIR_SUFFIX);
    }

    /** Deletes {@code jar}'s library directory, if any. */
    static void delete(Path jar) throws IOException {
        Path dir = directoryOf(jar);
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
