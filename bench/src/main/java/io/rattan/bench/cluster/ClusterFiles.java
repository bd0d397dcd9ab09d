package io.rattan.bench.cluster;

import io.rattan.api.Address;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What other tools read from a cluster's directory: its gateways and the node options it was started with. */
public final class ClusterFiles {

    private ClusterFiles() {
    }

    /** One node's addresses, as a line of {@code gateways.txt} gives them. */
    public record NodeAddresses(Address rpc, Address http) {
    }

    /** The nodes of the cluster in {@code dir}, in index order, from {@code dir/gateways.txt}. */
    public static List<NodeAddresses> nodes(Path dir) throws IOException {
        Path file = dir.resolve(ProcessCluster.GATEWAYS_FILE);
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + " not found: start the cluster with 'rattan cluster start --dir " + dir + "'");
        }
        List<NodeAddresses> nodes = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            if (f.length != 2) {
                throw new IOException(file + ": expected 'host:rpcPort host:httpPort', got '" + line + "'");
            }
            nodes.add(new NodeAddresses(Address.parse(f[0]), Address.parse(f[1])));
        }
        return nodes;
    }

    /** The {@code rattan node} options every node of the cluster in {@code dir} was started with. */
    public static List<String> nodeOptions(Path dir) throws IOException {
        return ClusterSpec.load(dir.resolve(ProcessCluster.SPEC_FILE)).nodeArgs();
    }
}
