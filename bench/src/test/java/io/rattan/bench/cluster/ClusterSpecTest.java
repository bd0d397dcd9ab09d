package io.rattan.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Address;
import io.rattan.bench.BenchCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What {@code rattan cluster start} gives each node on its command line; nothing here starts a node. */
class ClusterSpecTest {

    @TempDir
    Path dir;

    private ClusterSpec spec(String... startArgs) throws IOException {
        Path jar = Files.createFile(dir.resolve("node-" + System.nanoTime() + ".jar"));
        List<String> args = new java.util.ArrayList<>(List.of("cluster", "start", "--nodes", "3", "--dir",
                dir.resolve("c").toString(), "--base-port", "7400", "--node-jar", jar.toString(),
                // Neither a class-data archive nor RocksDB's library is looked for: the jar is an empty file.
                "--jvm-opt", "-Xshare:off", "--jvm-opt", "-Djava.library.path=/nonexistent"));
        args.addAll(List.of(startArgs));
        CommandLine.ParseResult parsed = BenchCli.commandLine().parseArgs(args.toArray(new String[0]));
        return ((ClusterCommand.Start) parsed.subcommand().subcommand().commandSpec().userObject()).clusterSpec();
    }

    /** Node {@code node}'s command line, from {@code node} on: what follows the JVM's flags and the class path. */
    private static List<String> nodeArgs(ClusterSpec spec, int node) {
        List<Address> bootstrap = node == 0 ? List.of() : List.of(spec.peer(0));
        List<String> command = spec.launch(node, Path.of("/tmp/d" + node), bootstrap).command();
        return command.subList(command.indexOf("node"), command.size());
    }

    @Test
    void wanFlagsReachEveryNodeWithItsIndexAndEveryPeer() throws IOException {
        Path matrix = Files.writeString(dir.resolve("m.tsv"), "0\t80\n80\t0\n");
        ClusterSpec spec = spec("--wan", matrix.toString(), "--wan-seed", "9", "--leaf-set-half", "2");

        for (int i = 0; i < 3; i++) {
            List<String> args = nodeArgs(spec, i);
            String all = String.join(" ", args);
            assertThat(all).as("node %d", i).contains("--wan " + matrix.toAbsolutePath(), "--wan-seed 9",
                    "--wan-node " + i + " ", "--wan-peers 127.0.0.1:7400,127.0.0.1:7403,127.0.0.1:7406",
                    "--leaf-set-half 2");
            assertThat(args).containsOnlyOnce("--wan", "--wan-node", "--wan-peers");
        }
    }

    @Test
    void theWanFlagsSurviveARestart() throws IOException {
        ClusterSpec spec = spec("--wan", "planetlab");
        Path file = dir.resolve("cluster.properties");
        spec.save(file);

        ClusterSpec loaded = ClusterSpec.load(file);
        assertThat(nodeArgs(loaded, 2)).isEqualTo(nodeArgs(spec, 2));
        assertThat(String.join(" ", nodeArgs(loaded, 2))).contains("--wan planetlab --wan-seed 1", "--wan-node 2");
    }

    @Test
    void withoutWanNoNodeIsGivenWanFlags() throws IOException {
        assertThat(String.join(" ", nodeArgs(spec(), 1))).doesNotContain("--wan");
    }

    @Test
    void badWanFlagsAreUsageErrors() throws IOException {
        Path ragged = Files.writeString(dir.resolve("ragged.tsv"), "0\t80\n80\n");
        assertThatThrownBy(() -> spec("--wan", dir.resolve("none.tsv").toString()))
                .hasMessageContaining("cannot read --wan matrix").hasMessageContaining("no such file");
        assertThatThrownBy(() -> spec("--wan", ragged.toString()))
                .hasMessageContaining("--wan matrix ragged.tsv line 2");
        assertThatThrownBy(() -> spec("--wan-seed", "3")).hasMessageContaining("--wan-seed needs --wan");
        assertThatThrownBy(() -> spec("--wan", "planetlab", "--wan-node", "1"))
                .hasMessageContaining("--wan-node is set by the cluster tool");
        assertThatThrownBy(() -> spec("--wan-peers=127.0.0.1:1"))
                .hasMessageContaining("--wan-peers is set by the cluster tool");
    }

    @Test
    void startsHelpNamesTheWanFlags() {
        TestClusters.Result r = TestClusters.run("cluster", "start", "--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.output()).contains("--wan=MATRIX", "--wan-seed=S", "With --wan MATRIX", "not bandwidth or loss");
    }
}
