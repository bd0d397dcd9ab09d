package io.rattan.node.store;

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
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

/**
 * RocksDB's JNI library: loaded into this JVM ({@link #load}), or extracted once into a directory that node JVMs
 * started by a launcher or a test load it from ({@code -Djava.library.path}). Without that directory every node JVM
 * inflates its own 14 MB copy into a new file under {@code /tmp} (RocksJava's fallback), which costs CPU at every
 * start and leaves a file behind per killed process.
 *
 * <p>Stateless; any thread.
 */
public final class RocksDbNativeLibrary {

    /** What a jar's library directory adds to the jar's name: {@code node.jar} → {@code node-native}. */
    public static final String DIR_SUFFIX = "-native";

    private RocksDbNativeLibrary() {
    }

    /**
     * Loads the library into this JVM, from {@code java.library.path} when it is there, else from RocksJava's own
     * extraction; does nothing once loaded.
     */
    public static void load() {
        RocksDB.loadLibrary();
    }

    /** The library's file name on this platform, as the rocksdbjni jar holds it. */
    public static String fileName() {
        return Environment.getJniLibraryFileName("rocksdb");
    }

    /**
     * The flag that points a node JVM at {@code jar}'s extracted library; empty when {@code jvmArgs} already set a
     * library path, or when the library cannot be extracted (the node then falls back to RocksJava's extraction).
     */
    public static Optional<String> flag(Path jar, List<String> jvmArgs) {
        if (jvmArgs.stream().anyMatch(a -> a.startsWith("-Djava.library.path="))) {
            return Optional.empty();
        }
        try {
            return Optional.of("-Djava.library.path=" + extracted(jar));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The directory holding {@code jar}'s library for this platform ({@link #directoryOf}), extracted if missing. */
    public static Path extracted(Path jar) throws IOException {
        String name = fileName();
        Path dir = directoryOf(jar);
        if (Files.isRegularFile(dir.resolve(name))) {
            return dir;
        }
        Files.createDirectories(dir);
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry entry = zip.getEntry(name);
            if (entry == null) {
                throw new IOException(jar + " holds no " + name);
            }
            try (InputStream in = zip.getInputStream(entry)) {
                install(in, dir, name);
            }
        }
        return dir;
    }

    /** {@code dir}, holding the library copied from the rocksdbjni jar on this JVM's class path if not there yet. */
    public static Path extractedFromClassPath(Path dir) throws IOException {
        String name = fileName();
        if (Files.isRegularFile(dir.resolve(name))) {
            return dir;
        }
        Files.createDirectories(dir);
        try (InputStream in = RocksDB.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException(name + " is not on the class path (rocksdbjni)");
            }
            install(in, dir, name);
        }
        return dir;
    }

    /** Where {@code jar}'s library goes: a directory named after the jar, beside it. */
    public static Path directoryOf(Path jar) {
        String stem = jar.getFileName().toString().replaceFirst("\\.jar$", "");
        return jar.toAbsolutePath().resolveSibling(stem + DIR_SUFFIX);
    }

    /** Deletes {@code jar}'s library directory, if any. */
    public static void delete(Path jar) throws IOException {
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

    private static void install(InputStream in, Path dir, String name) throws IOException {
        // Written under a name of its own, then renamed: a JVM starting meanwhile never maps half a library.
        Path tmp = Files.createTempFile(dir, name, ".tmp");
        try {
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
