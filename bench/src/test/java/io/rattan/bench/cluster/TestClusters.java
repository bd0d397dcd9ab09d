package io.rattan.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.bench.BenchCli;
import io.rattan.node.process.NodeProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import picocli.CommandLine;

/** Starts and cleans up real node-process clusters for tests, through the same command line users run. */
public final class TestClusters {

    private TestClusters() {
    }

    /**
     * dht-node's runnable jar, which surefire names in {@code rattan.nodeJar}: in a reactor build ({@code mvn
     * verify}, or {@code -pl bench -am}) dht-node is packaged before bench's tests run.
     */
    public static Path nodeJar() {
        String name = System.getProperty("rattan.nodeJar");
        assertThat(name).as("system property rattan.nodeJar (set by bench's pom)").isNotNull();
        Path jar = Path.of(name);
        assertThat(jar).as("dht-node's runnable jar; build it first: mvn -B -pl bench -am verify").isRegularFile();
        return jar;
    }

    /**
     * The first of {@code count} consecutive free ports on 127.0.0.1, from a random place in the unprivileged,
     * non-ephemeral range so that parallel builds on one machine rarely collide.
     */
    public static int freePortBlock(int count) throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 20_000 + ThreadLocalRandom.current().nextInt(12_000);
            if (allFree(base, count)) {
                return base;
            }
        }
        throw new IOException("no " + count + " consecutive free ports found");
    }

    private static boolean allFree(int base, int count) {
        for (int p = base; p < base + count; p++) {
            try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /** Runs {@code rattan <args>} in this JVM; returns its exit code and output. */
    public static Result run(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = BenchCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        int code = cl.execute(args);
        return new Result(code, out.toString());
    }

    /** A command's exit code and everything it printed. */
    public record Result(int exitCode, String output) {
    }

    /** Starts a cluster of {@code nodes} under {@code dir} with dht-node's jar; fails the test if it does not start. */
    public static int start(Path dir, int nodes, String... nodeOptions) throws IOException {
        int base = freePortBlock(ClusterSpec.PORTS_PER_NODE * nodes);
        List<String> args = new ArrayList<>(List.of("cluster", "start", "--nodes", Integer.toString(nodes),
                "--dir", dir.toString(), "--base-port", Integer.toString(base), "--node-jar", nodeJar().toString(),
                "--heap", "128m", "--ready-timeout", "120s"));
        args.addAll(List.of(nodeOptions));
        Result r = run(args.toArray(new String[0]));
        assertThat(r.exitCode()).as(r.output()).isZero();
        return base;
    }

    /**
     * Stops the cluster under {@code dir} with the tool, then SIGKILLs any process still naming {@code dir} on its
     * command line, so that a failed test leaves nothing running.
     */
    public static void cleanUp(Path dir) {
        if (Files.isRegularFile(dir.resolve(ProcessCluster.SPEC_FILE))) {
            run("cluster", "stop", "--dir", dir.toString());
        }
        for (long pid : pidsNaming(dir)) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Pids of live processes whose command line has an argument that is {@code dir} or a path under it. */
    public static List<Long> pidsNaming(Path dir) {
        String prefix = dir.toAbsolutePath().normalize().toString();
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            procs.forEach(p -> {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    return;
                }
                long pid = Long.parseLong(name);
                for (String arg : NodeProcess.cmdline(pid)) {
                    if (arg.equals(prefix) || arg.startsWith(prefix + "/")) {
                        pids.add(pid);
                        return;
                    }
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return pids;
    }
}
