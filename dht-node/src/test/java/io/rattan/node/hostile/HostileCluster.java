package io.rattan.node.hostile;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.client.RattanClient;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The set-up the hostile tests share: a cluster of real nodes and an honest client whose gateway is node 0, closed
 * together (the client first, so that it does not retry against stopping nodes).
 */
final class HostileCluster implements AutoCloseable {

    final LocalCluster cluster;
    final RattanClient client;

    private HostileCluster(LocalCluster cluster, RattanClient client) {
        this.cluster = cluster;
        this.client = client;
    }

    /** Starts {@code nodes} nodes under {@code dir} and a client of node 0's gateway with the builder's defaults. */
    static HostileCluster start(int nodes, Path dir, NodeConfig config) throws IOException {
        return start(nodes, dir, config, UnaryOperator.identity());
    }

    /** As {@link #start(int, Path, NodeConfig)}, the client's builder passed through {@code clientOptions} first. */
    static HostileCluster start(int nodes, Path dir, NodeConfig config,
                                UnaryOperator<RattanClient.Builder> clientOptions) throws IOException {
        // The strangers here prove the ids they claim (every version a node speaks proves ids): the defences under
        // test hold by address, whatever proves the id.
        LocalCluster cluster = LocalCluster.start(nodes, dir, config);
        try {
            RattanClient client = clientOptions.apply(RattanClient.builder()
                    .gateway(new Address("127.0.0.1", cluster.node(0).gatewayAddress().getPort()))).build();
            return new HostileCluster(cluster, client);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Closes {@code c} when there is one: an {@code @AfterAll} runs even when the start failed. */
    static void close(HostileCluster c) {
        if (c != null) {
            c.close();
        }
    }

    /**
     * The live nodes whose own store holds a live copy in {@code slot} under {@code key} (a value's hash, or for one
     * put with a secret by a client {@code SecretBinding.slotFor}).
     */
    List<RattanNode> holders(Id key, Bytes slot) throws Exception {
        return nodesHolding(key, slot, false);
    }

    /** The live nodes whose own store holds a tombstone in {@code slot} under {@code key}. */
    List<RattanNode> tombstones(Id key, Bytes slot) throws Exception {
        return nodesHolding(key, slot, true);
    }

    private List<RattanNode> nodesHolding(Id key, Bytes slot, boolean tombstone) throws Exception {
        List<RattanNode> holders = new ArrayList<>();
        for (RattanNode n : cluster.liveNodes()) {
            Optional<StoredRecord> r = n.readStore(key, slot).get();
            if (r.isPresent() && r.get().tombstone() == tombstone) {
                holders.add(n);
            }
        }
        return holders;
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            cluster.close();
        }
    }
}
