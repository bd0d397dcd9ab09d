package io.rattan.bench.cluster;

import io.rattan.node.store.RocksDbNativeLibrary;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Class-data sharing for node processes: the classes a node loads are archived once per node jar and JVM build, and
 * every later node maps them instead of parsing and verifying them again, which shortens each start to ready.
 *
 * <p>A CDS archive is only valid for the exact jar path, size and modification time it was dumped with, so the nodes
 * run from a copy of the jar in a cache directory, named by the source jar's path, size and modification time (a
 * rebuild gives a new name), beside its archives {@code <jar>-jdk<version>.jsa}. When the archive is missing, node 0
 * writes one when it exits ({@code -XX:ArchiveClassesAtExit} on JDK 17 and 18; {@code -XX:+AutoCreateSharedArchive}
 * from 19 on) under a name of its own, and the other nodes run without it: one writer, so 16 nodes never dump at
 * once. The next launch checks that the JVM maps it and renames it into place; from then on every node maps it
 * ({@code -XX:SharedArchiveFile}).
 *
 * <p>A JVM flag naming {@code Xshare}, {@code SharedArchiveFile}, {@code ArchiveClassesAtExit} or
 * {@code AutoCreateSharedArchive} among the cluster's JVM flags turns all of this off (e.g. {@code --jvm-opt
 * -Xshare:off} to measure without it): the nodes then run from {@code D/node.jar} as before.
 */
final class ClassDataSharing {

    /** The cache directory: {@code $RATTAN_CDS_DIR}, else {@code $XDG_CACHE_HOME/rattan/cds}, else ~/.cache/... */
    static final String DIR_ENV = "RATTAN_CDS_DIR";
    /** Cached jars always kept (the newest); older ones only while a running process uses them. */
    static final int KEEP_JARS = 3;
    private static final String JAR_PREFIX = "node-";
    private static final String PARTIAL = ".partial-";

    private ClassDataSharing() {
    }

    /** False when the cluster's JVM flags already decide class-data sharing themselves. */
    static boolean wanted(List<String> jvmArgs) {
        return jvmArgs.stream().noneMatch(a -> a.startsWith("-Xshare") || a.contains("SharedArchiveFile")
                || a.contains("ArchiveClassesAtExit") || a.contains("AutoCreateSharedArchive"));
    }

    /** The cache directory, from the environment. */
    static Path cacheDir() {
        String dir = System.getenv(DIR_ENV);
        if (dir != null && !dir.isBlank()) {
            return Path.of(dir);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("rattan").resolve("cds");
    }

    /**
     * The cached copy of {@code jar} in {@code cache}, copied there first when missing (through a temporary file, so
     * a reader never sees half a jar). Old copies and their archives are pruned.
     */
    static Path cachedJar(Path jar, Path cache) throws IOException {
        Files.createDirectories(cache);
        Path abs = jar.toAbsolutePath().normalize();
        if (cache.toAbsolutePath().normalize().equals(abs.getParent())) {
            return abs;
        }
        String key = Integer.toHexString(abs.toString().hashCode()) + "-" + Files.size(abs) + "-"
                + Files.getLastModifiedTime(abs).toMillis();
        Path copy = cache.resolve(JAR_PREFIX + key + ".jar");
        if (!Files.isRegularFile(copy)) {
            Path tmp = Files.createTempFile(cache, "copy-", ".tmp");
            try {
                Files.copy(abs, tmp, StandardCopyOption.REPLACE_EXISTING);
                Files.move(tmp, copy, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
            prune(cache, copy);
        }
        return copy;
    }

    /**
     * The JVM flags for node {@code node} running {@code jar} (a {@link #cachedJar}) on {@code java}: map the
     * archive when it exists; else node 0 writes one at exit. Empty when the JVM's version cannot be read.
     */
    static List<String> flags(String java, Path jar, int node) {
        Optional<String> version = runtimeVersion(java);
        if (version.isEmpty()) {
            return List.of();
        }
        Path archive = archive(jar, version.get());
        promoteFinished(java, jar, archive);
        // Classes a JVM cannot archive (e.g. picocli's, compiled for Java 5) are skipped with a warning each;
        // that is expected and would only clutter the node's log.
        List<String> flags = new ArrayList<>(List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
        if (Files.isRegularFile(archive)) {
            flags.add("-XX:SharedArchiveFile=" + archive);
            return flags;
        }
        if (node != 0) {
            return List.of();
        }
        // Written under a name of its own and renamed only once whole and valid (promoteFinished): a node killed
        // while it dumps, or a second cluster starting meanwhile, never maps half an archive.
        Path partial = archive.resolveSibling(archive.getFileName() + PARTIAL + System.nanoTime());
        if (major(version.get()) >= 19) {
            flags.add("-XX:+AutoCreateSharedArchive");
            flags.add("-XX:SharedArchiveFile=" + partial);
        } else {
            flags.add("-XX:ArchiveClassesAtExit=" + partial);
        }
        return flags;
    }

    /**
     * Renames an archive a node finished writing to its final name, once {@code java -Xshare:on} maps it; deletes
     * one that fails that check. One that a live process is still to write is left alone.
     */
    private static void promoteFinished(String java, Path jar, Path archive) {
        List<Path> partials;
        try (Stream<Path> s = Files.list(archive.getParent())) {
            String prefix = archive.getFileName() + PARTIAL;
            partials = s.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        } catch (IOException e) {
            return;
        }
        for (Path partial : partials) {
            String name = partial.toString();
            if (namedByLiveProcess(name)) {
                continue;
            }
            try {
                if (!Files.exists(archive) && maps(java, jar, partial)) {
                    Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
                } else {
                    Files.deleteIfExists(partial);
                }
            } catch (IOException e) {
                // Another cluster promoted or deleted it first: nothing to do.
            }
        }
    }

    /**
     * True when {@code java} maps {@code archive} for {@code jar}: {@code -Xshare:on} fails rather than run without
     * it (a truncated archive even crashes the JVM that maps it, hence this check in a JVM of its own).
     */
    private static boolean maps(String java, Path jar, Path archive) {
        try {
            Process p = new ProcessBuilder(java, "-Xshare:on", "-XX:SharedArchiveFile=" + archive, "-cp",
                    jar.toString(), "-version")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static Path archive(Path jar, String runtimeVersion) {
        String name = jar.getFileName().toString().replaceFirst("\\.jar$", "");
        String version = runtimeVersion.replaceAll("[^A-Za-z0-9._+-]", "_");
        return jar.resolveSibling(name + "-jdk" + version + ".jsa");
    }

    static int major(String runtimeVersion) {
        String digits = runtimeVersion.replaceFirst("^1\\.", "").replaceFirst("\\D.*$", "");
        return digits.isEmpty() ? 0 : Integer.parseInt(digits);
    }

    /** The {@code JAVA_RUNTIME_VERSION} of the JDK that {@code java} belongs to, from its {@code release} file. */
    static Optional<String> runtimeVersion(String java) {
        try {
            Path exe = Path.of(java);
            if (!exe.isAbsolute()) {
                exe = onPath(java).orElse(null);
                if (exe == null) {
                    return Optional.empty();
                }
            }
            Path home = exe.toRealPath().getParent().getParent();
            Path release = home.resolve("release");
            if (!Files.isRegularFile(release)) {
                return Optional.empty();
            }
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(release, StandardCharsets.UTF_8)) {
                p.load(r);
            }
            String v = p.getProperty("JAVA_RUNTIME_VERSION", p.getProperty("JAVA_VERSION"));
            return v == null ? Optional.empty() : Optional.of(v.replace("\"", "").trim());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Deletes cached jars (with their archives) beyond the newest {@link #KEEP_JARS} that no running process names
     * on its command line: a running cluster's nodes keep theirs, so a node of it can still be restarted.
     */
    private static void prune(Path cache, Path keep) throws IOException {
        List<Path> jars;
        try (Stream<Path> s = Files.list(cache)) {
            jars = new ArrayList<>(s.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(JAR_PREFIX) && n.endsWith(".jar") && !p.equals(keep);
            }).toList());
        }
        jars.sort(Comparator.comparing(ClassDataSharing::modified).reversed());
        for (int i = KEEP_JARS - 1; i < jars.size(); i++) {
            Path jar = jars.get(i);
            if (!namedByLiveProcess(jar.toString())) {
                String stem = jar.getFileName().toString().replaceFirst("\\.jar$", "");
                try (Stream<Path> s = Files.list(cache)) {
                    for (Path p : s.filter(p -> p.getFileName().toString().startsWith(stem + "-jdk")).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
                RocksDbNativeLibrary.delete(jar);
                Files.deleteIfExists(jar);
            }
        }
    }

    private static boolean namedByLiveProcess(String text) {
        return ProcessHandle.allProcesses().anyMatch(h -> h.info().commandLine()
                .map(c -> c.contains(text)).orElse(false));
    }

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }
}
