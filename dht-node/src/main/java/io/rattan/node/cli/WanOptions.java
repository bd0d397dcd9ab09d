package io.rattan.node.cli;

import io.rattan.api.Address;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.core.wan.OneWayDelay;
import io.rattan.node.transport.PeerDelays;
import io.rattan.node.transport.WanDelays;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Help;
import picocli.CommandLine.Option;

/**
 * A wide area on one machine: {@code rattan node --wan MATRIX --wan-node I --wan-peers A0,A1,...} places the cluster's
 * nodes on the matrix's hosts as the simulator would and delays each frame to a peer by half their round trip, with
 * the simulator's jitter ({@link WanDelays}). {@code rattan cluster start --wan} sets these for every node.
 */
final class WanOptions {

    /** The word that names the matrix shipped with Rattan instead of a file. */
    static final String PLANETLAB = LatencyMatrix.PLANETLAB;

    @Option(names = "--wan", paramLabel = "MATRIX",
            description = "Emulate a wide area: delay every frame to a peer by half the round trip between the two "
                    + "nodes' hosts in MATRIX, a latency matrix in the simulator's format (a square of RTTs in ms), "
                    + "plus the simulator's jitter (sigma 10%% of that). '" + PLANETLAB + "': the 490-host PlanetLab "
                    + "matrix shipped with Rattan. Hosts are assigned as `./rattan sim` assigns them. "
                    + "Needs --wan-node and --wan-peers.")
    String matrix;

    @Option(names = "--wan-seed", paramLabel = "S",
            description = "Seeds the assignment of nodes to hosts (as the simulator's --seed does) and this node's "
                    + "jitter. Default: 1.")
    Long seed;

    @Option(names = "--wan-node", paramLabel = "I", description = "This node's index in --wan-peers, from 0.")
    Integer node;

    @Option(names = "--wan-peers", paramLabel = "HOST:PORT", split = ",",
            converter = Converters.PeerAddressConverter.class, showDefaultValue = Help.Visibility.NEVER,
            description = "Every node's peer address, in cluster order (node I is entry I; this node's among them). "
                    + "A frame to an address not listed is not delayed.")
    List<Address> peers = new ArrayList<>();

    /**
     * The delays these flags ask for, {@link PeerDelays#NONE} without {@code --wan}; an IllegalArgumentException
     * saying what is wrong when they do not make sense. {@code self} is this node's peer address, checked against its
     * entry in the peer list unless its port is 0 (not known before the node binds it).
     */
    PeerDelays peerDelays(Address self) {
        if (matrix == null) {
            if (seed != null || node != null || !peers.isEmpty()) {
                throw new IllegalArgumentException("--wan-seed, --wan-node and --wan-peers need --wan");
            }
            return PeerDelays.NONE;
        }
        if (node == null) {
            throw new IllegalArgumentException("--wan needs --wan-node I, this node's index in --wan-peers");
        }
        if (peers.isEmpty()) {
            throw new IllegalArgumentException("--wan needs --wan-peers, every node's peer address in cluster order");
        }
        if (node < 0 || node >= peers.size()) {
            throw new IllegalArgumentException("--wan-node " + node + " is out of range: --wan-peers lists "
                    + peers.size() + " node" + (peers.size() == 1 ? "" : "s") + " (indexes 0.." + (peers.size() - 1)
                    + ")");
        }
        if (self.port() != 0 && !peers.get(node).equals(self)) {
            throw new IllegalArgumentException("--wan-peers entry " + node + " is " + peers.get(node)
                    + ", not this node's peer address " + self);
        }
        return new WanDelays(load(), peers, node, seed == null ? 1 : seed, OneWayDelay.DEFAULT_JITTER_FRACTION);
    }

    private LatencyMatrix load() {
        return LatencyMatrix.named(matrix, "--wan");
    }
}
