package io.rattan.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's class-data sharing choices, against this test's own JVM and a jar in a temporary cache. */
class ClassDataSharingTest {

    @TempDir
    Path dir;

    private final String java = ProcessHandle.current().info().command().orElseThrow();

    @Test
    void anArchiveFlagAmongTheClustersFlagsTurnsItOff() {
        assertThat(ClassDataSharing.wanted(List.of("-XX:+UseSerialGC"))).isTrue();
        assertThat(ClassDataSharing.wanted(List.of("-Xshare:off"))).isFalse();
        assertThat(ClassDataSharing.wanted(List.of("-XX:SharedArchiveFile=/x.jsa"))).isFalse();
        assertThat(ClassDataSharing.wanted(List.of("-XX:ArchiveClassesAtExit=/x.jsa"))).isFalse();
    }

    @Test
    void majorVersionsOfRuntimeVersions() {
        assertThat(ClassDataSharing.major("17.0.15+6-Debian-1deb12u1")).isEqualTo(17);
        assertThat(ClassDataSharing.major("25.0.3+9-LTS")).isEqualTo(25);
        assertThat(ClassDataSharing.major("1.8.0_402-b06")).isEqualTo(8);
    }

    @Test
    void theJarIsCachedOnceUnderANameOfItsBuild() throws IOException {
        Path jar = Files.writeString(dir.resolve("node.jar"), "not really a jar");
        Path cache = dir.resolve("cache");
        Path copy = ClassDataSharing.cachedJar(jar, cache);
        assertThat(copy.getParent()).isEqualTo(cache);
        assertThat(Files.readString(copy)).isEqualTo("not really a jar");
        assertThat(ClassDataSharing.cachedJar(jar, cache)).isEqualTo(copy);
        // A copy already in the cache is its own cached copy: restarting a node never copies again.
        assertThat(ClassDataSharing.cachedJar(copy, cache)).isEqualTo(copy);
    }

    @Test
    void withoutAnArchiveOnlyNodeZeroWritesOneUnderAPartialName() throws IOException {
        Path jar = ClassDataSharing.cachedJar(Files.writeString(dir.resolve("node.jar"), "x"), dir.resolve("c"));
        List<String> zero = ClassDataSharing.flags(java, jar, 0);
        List<String> one = ClassDataSharing.flags(java, jar, 1);

        assertThat(one).isEmpty();
        String version = ClassDataSharing.runtimeVersion(java).orElseThrow();
        String writer = ClassDataSharing.major(version) >= 19 ? "-XX:SharedArchiveFile=" : "-XX:ArchiveClassesAtExit=";
        assertThat(zero).anySatisfy(f -> assertThat(f).startsWith(writer + ClassDataSharing.archive(jar, version)
                + ".partial-"));
    }

    @Test
    void aBrokenArchiveIsNeverPromotedAndAValidOneIsMapped() throws IOException {
        Path jar = ClassDataSharing.cachedJar(Files.writeString(dir.resolve("node.jar"), "x"), dir.resolve("c"));
        String version = ClassDataSharing.runtimeVersion(java).orElseThrow();
        Path archive = ClassDataSharing.archive(jar, version);
        // What a node killed in the middle of its dump leaves behind: the JVM that mapped it would crash.
        Path partial = Files.write(archive.resolveSibling(archive.getFileName() + ".partial-1"), new byte[4096]);

        List<String> flags = ClassDataSharing.flags(java, jar, 1);

        assertThat(partial).doesNotExist();
        assertThat(archive).doesNotExist();
        assertThat(flags).isEmpty();

        Files.write(archive, new byte[] {1});
        assertThat(ClassDataSharing.flags(java, jar, 1)).contains("-XX:SharedArchiveFile=" + archive);
    }
}
