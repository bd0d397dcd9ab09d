package io.rattan.node;

import com.google.common.net.InetAddresses;
import io.rattan.api.Address;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.limits.Limits;
import io.rattan.node.store.RocksDbStore;
import io.rattan.node.tls.ClientAccessFiles;
import io.rattan.node.tls.TlsFiles;
import io.rattan.node.transport.PeerDelays;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How to run one node: where it listens, where it keeps its data, whom it joins through, and its tunables.
 *
 * @param host        the address the node advertises to peers and binds its three ports to unless {@code bind} says
 *                    otherwise, so it must be one that peers can reach (not a wildcard such as {@code 0.0.0.0})
 * @param peerPort    port for peer traffic; 0 picks a free one
 * @param gatewayPort port for the binary client RPC; 0 picks a free one
 * @param httpPort    port for HTTP/JSON and {@code /metrics}; 0 picks a free one
 * @param dataDir     holds the node id ({@code node-id}) and the store ({@code store/}); created when missing
 * @param bootstrap   peers to join through, tried in order; empty starts a new overlay (at most
 *                    {@value #BOOTSTRAP_MAX})
 * @param config      the node's tunables
 * @param peerDelays  how long each message to a peer waits before it leaves: a fixed delay (fault injection) or the
 *                    delays of an emulated wide area; {@link PeerDelays#NONE} normally
 * @param inboundSlowness fault injection: the slow-node hook's periods ({@link InboundSlowness#NONE} normally)
 * @param storage     how the store runs: {@code --fsync}, a space limit
 *                    ({@link RocksDbStore.Settings#DEFAULT} normally)
 * @param limits      what the node grants anyone who reaches its ports: rates, storage shares, connection bounds
 *                    and timeouts ({@link Limits#defaults()} normally)
 * @param bind        the IP address the three ports listen on, a wildcard ({@code 0.0.0.0}, {@code ::}) allowed; null
 *                    binds {@code host}. Peers and one-hop clients are told {@code host}, and outbound peer connections
 *                    leave from it where it is an address of this machine, since a listener checks that a peer's
 *                    connection comes from the address it claims
 * @param operator    where the operator endpoints are served: an admin port, and what the HTTP gateway serves
 *                    (null: {@link OperatorEndpoints#DEFAULT})
 * @param tls         mutual TLS between nodes: the cluster CA, this node's certificate, the revocation list; null
 *                    for none (peer connections in plaintext, a peer's id proven by its key and its address)
 * @param clientAccess TLS on the client ports (binary gateway and HTTP) and bearer tokens on HTTP (null:
 *                    {@link ClientAccessFiles#OPEN})
 */
public record NodeOptions(String host, int peerPort, int gatewayPort, int httpPort, Path dataDir,
                          List<Address> bootstrap, NodeConfig config, PeerDelays peerDelays,
                          InboundSlowness inboundSlowness, RocksDbStore.Settings storage, Limits limits,
                          String bind, OperatorEndpoints operator, TlsFiles tls, ClientAccessFiles clientAccess) {

    public static final String LOOPBACK = "127.0.0.1";
    public static final int BOOTSTRAP_MAX = 64;

    public NodeOptions {
        if (peerDelays == null) {
            throw new IllegalArgumentException("peerDelays is required (PeerDelays.NONE for none)");
        }
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host is required");
        }
        if (isWildcard(host)) {
            throw new IllegalArgumentException("host '" + host + "' is a wildcard; the node advertises its host to "
                    + "peers, so give an address they can reach");
        }
        if (!InetAddresses.isInetAddress(host)) {
            throw new IllegalArgumentException("host '" + host + "' is not an IP literal; peers prove their address by "
                    + "it (the handshake compares it with the connection's source), so give e.g. 127.0.0.1 or ::1");
        }
        operator = operator == null ? OperatorEndpoints.DEFAULT : operator;
        clientAccess = clientAccess == null ? ClientAccessFiles.OPEN : clientAccess;
        if (bind == null) {
            bind = host;
        } else if (!InetAddresses.isInetAddress(bind)) {
            throw new IllegalArgumentException("bind address '" + bind + "' is not an IP literal (0.0.0.0 or :: for "
                    + "every interface)");
        } else if (InetAddresses.forString(bind) instanceof Inet4Address && isWildcard(bind)
                && InetAddresses.forString(host) instanceof Inet6Address) {
            throw new IllegalArgumentException("bind address " + bind + " listens on IPv4 only, yet the advertised "
                    + "address " + host + " is IPv6: bind :: instead");
        }
        requirePorts(peerPort, gatewayPort, httpPort, operator);
        if (dataDir == null) {
            throw new IllegalArgumentException("dataDir is required");
        }
        if (bootstrap == null) {
            throw new IllegalArgumentException("bootstrap is required (empty to start a new overlay)");
        }
        if (bootstrap.size() > BOOTSTRAP_MAX) {
            throw new IllegalArgumentException(
                    "at most " + BOOTSTRAP_MAX + " bootstrap peers, got " + bootstrap.size());
        }
        for (Address peer : bootstrap) {
            if (peer == null) {
                throw new IllegalArgumentException("bootstrap holds a null address");
            }
        }
        bootstrap = List.copyOf(bootstrap);
        if (config == null) {
            throw new IllegalArgumentException("config is required");
        }
        if (inboundSlowness == null) {
            throw new IllegalArgumentException("inboundSlowness is required (InboundSlowness.NONE for none)");
        }
        if (storage == null) {
            throw new IllegalArgumentException("storage is required (RocksDbStore.Settings.DEFAULT for the default)");
        }
        if (limits == null) {
            throw new IllegalArgumentException("limits is required (Limits.defaults() normally)");
        }
    }

    /** Options with the default store settings and the default {@link Limits}. */
    public NodeOptions(String host, int peerPort, int gatewayPort, int httpPort, Path dataDir,
                       List<Address> bootstrap, NodeConfig config, PeerDelays peerDelays,
                       InboundSlowness inboundSlowness) {
        this(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, peerDelays, inboundSlowness,
                RocksDbStore.Settings.DEFAULT, Limits.defaults(), null, null, null, null);
    }

    /** The same node with the store run as {@code settings} say ({@code --fsync}, a space limit). */
    public NodeOptions withStorage(RocksDbStore.Settings settings) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, peerDelays,
                inboundSlowness, settings, limits, bind, operator, tls, clientAccess);
    }

    /** These options with other limits. */
    public NodeOptions withLimits(Limits l) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, peerDelays,
                inboundSlowness, storage, l, bind, operator, tls, clientAccess);
    }

    /** Options without fault injection: peer messages leave at once. */
    public NodeOptions(String host, int peerPort, int gatewayPort, int httpPort, Path dataDir,
                       List<Address> bootstrap, NodeConfig config) {
        this(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, PeerDelays.NONE, InboundSlowness.NONE);
    }

    /**
     * Fault injection for experiments and tests: every message this node sends to a peer waits {@code delay}
     * first, as if the node were slow or far away (replies included, so peers measure the delay in their RTTs);
     * 0..60 s, zero for none. Short for {@code withPeerDelays(PeerDelays.fixed(delay))}.
     */
    public NodeOptions withPeerSendDelay(Duration delay) {
        return withPeerDelays(PeerDelays.fixed(delay));
    }

    /**
     * Each message this node sends to a peer waits as long as {@code delays} says for its destination: a wide area
     * emulated on one machine ({@link io.rattan.node.transport.WanDelays}), or fault injection.
     */
    public NodeOptions withPeerDelays(PeerDelays delays) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, delays,
                inboundSlowness, storage, limits, bind, operator, tls, clientAccess);
    }

    /** Fault injection for experiments: the node handles its input late during {@code slowness}'s periods. */
    public NodeOptions withInboundSlowness(InboundSlowness slowness) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, peerDelays,
                slowness, storage, limits, bind, operator, tls, clientAccess);
    }

    /** A node on 127.0.0.1 with free ports, no bootstrap (a new overlay) and default tunables. */
    public static NodeOptions local(Path dataDir) {
        return new NodeOptions(LOOPBACK, 0, 0, 0, dataDir, List.of(), NodeConfig.defaults());
    }

    /**
     * A node on loopback with free ports that founds a one-node overlay and keeps one copy of each value, acknowledged
     * alone ({@code k = W = 1}, what {@code rattan node --single-node} runs): with the default W = 2 a node alone
     * refuses every put, since it cannot tell a one-node overlay from missing neighbours.
     */
    public static NodeOptions singleNode(Path dataDir) {
        return local(dataDir).withConfig(NodeConfig.defaults().withReplicas(1, 1));
    }

    public NodeOptions withBootstrap(List<Address> peers) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, peers, config, peerDelays,
                inboundSlowness, storage, limits, bind, operator, tls, clientAccess);
    }

    public NodeOptions withConfig(NodeConfig c) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, c, peerDelays,
                inboundSlowness, storage, limits, bind, operator, tls, clientAccess);
    }

    public NodeOptions withPorts(int peer, int gateway, int httpGateway) {
        return new NodeOptions(host, peer, gateway, httpGateway, dataDir, bootstrap, config, peerDelays,
                inboundSlowness, storage, limits, bind, operator, tls, clientAccess);
    }

    public NodeOptions withHost(String h) {
        // A bind that only followed the old host follows the new one.
        return new NodeOptions(h, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, peerDelays,
                inboundSlowness, storage, limits, bind.equals(host) ? null : bind, operator, tls, clientAccess);
    }

    /** These options listening on {@code address} (a wildcard allowed) while still advertising {@link #host}. */
    public NodeOptions withBind(String address) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, peerDelays,
                inboundSlowness, storage, limits, address, operator, tls, clientAccess);
    }

    /** These options with mutual TLS between nodes as {@code files} say (null: none). */
    public NodeOptions withTls(TlsFiles files) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, peerDelays,
                inboundSlowness, storage, limits, bind, operator, files, clientAccess);
    }

    /** These options with the HTTP gateway reached as {@code files} say: TLS, tokens. */
    public NodeOptions withClientAccess(ClientAccessFiles files) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, peerDelays,
                inboundSlowness, storage, limits, bind, operator, tls, files);
    }

    /** These options with the operator endpoints served as {@code o} says. */
    public NodeOptions withOperatorEndpoints(OperatorEndpoints o) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dataDir, bootstrap, config, peerDelays,
                inboundSlowness, storage, limits, bind, o, tls, clientAccess);
    }

    public NodeOptions withDataDir(Path dir) {
        return new NodeOptions(host, peerPort, gatewayPort, httpPort, dir, bootstrap, config, peerDelays,
                inboundSlowness, storage, limits, bind, operator, tls, clientAccess);
    }

    private static void requirePorts(int peerPort, int gatewayPort, int httpPort, OperatorEndpoints operator) {
        requirePort("peerPort", peerPort);
        requirePort("gatewayPort", gatewayPort);
        requirePort("httpPort", httpPort);
        if ((peerPort != 0 && (peerPort == gatewayPort || peerPort == httpPort))
                || (gatewayPort != 0 && gatewayPort == httpPort)) {
            throw new IllegalArgumentException("peer, gateway and http ports must differ (or be 0)");
        }
        int admin = operator.adminPort();
        if (operator.hasAdminPort() && admin != 0 && (admin == peerPort || admin == gatewayPort || admin == httpPort)) {
            throw new IllegalArgumentException("the admin port must differ from the other three");
        }
    }

    private static void requirePort(String name, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(name + " must be 0..65535, got " + port);
        }
    }

    private static boolean isWildcard(String host) {
        String h = host.trim();
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        return InetAddresses.isInetAddress(h) && InetAddresses.forString(h).isAnyLocalAddress();
    }
}
