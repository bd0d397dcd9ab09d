package io.rattan.node.process;

import io.rattan.node.cli.RattanCli;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How to run one node as a JVM of its own: {@code java [jvmArgs] -cp classPath RattanCli node --host … --port …
 * --gateway-port … --http-port … --data-dir … [nodeArgs]}. The host, ports and data dir are set here, so they do not
 * belong among {@code nodeArgs}.
 *
 * @param java      the java executable
 * @param jvmArgs   JVM flags, e.g. {@code -Xmx192m} and the {@code -Djava.library.path} of RocksDB's JNI library
 * @param classPath a class path holding the node: its runnable jar, or a test JVM's class path
 * @param ports     where the node listens
 * @param dataDir   the node's id and store; made absolute, as {@link NodeProcess} looks for it in command lines
 * @param nodeArgs  further {@code rattan node} options, e.g. {@code --bootstrap 127.0.0.1:7400 --leaf-set-half 2}
 */
public record NodeLaunch(String java, List<String> jvmArgs, String classPath, NodePorts ports, Path dataDir,
                         List<String> nodeArgs) {

    public NodeLaunch {
        Objects.requireNonNull(java, "java");
        jvmArgs = List.copyOf(jvmArgs);
        Objects.requireNonNull(classPath, "classPath");
        Objects.requireNonNull(ports, "ports");
        dataDir = dataDir.toAbsolutePath().normalize();
        nodeArgs = List.copyOf(nodeArgs);
    }

    /** The command line that runs the node. */
    public List<String> command() {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(RattanCli.class.getName());
        cmd.add("node");
        cmd.add("--host");
        cmd.add(ports.host());
        cmd.add("--port");
        cmd.add(Integer.toString(ports.peer()));
        cmd.add("--gateway-port");
        cmd.add(Integer.toString(ports.gateway()));
        cmd.add("--http-port");
        cmd.add(Integer.toString(ports.http()));
        cmd.add("--data-dir");
        cmd.add(dataDir.toString());
        cmd.addAll(nodeArgs);
        return cmd;
    }
}
