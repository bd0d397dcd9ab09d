package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import com.google.common.net.InetAddresses;
import io.rattan.api.Address;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.WatchLimits;
import io.rattan.core.slow.SlowTrace;
import io.rattan.node.Founder;
import io.rattan.node.InboundSlowness;
import io.rattan.node.NodeOptions;
import io.rattan.node.OperatorEndpoints;
import io.rattan.node.RattanNode;
import io.rattan.node.gateway.http.HttpSurfaces;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.store.RocksDbStore;
import io.rattan.node.tls.ClientAccessFiles;
import io.rattan.node.tls.PeerTls;
import io.rattan.node.tls.TlsFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code rattan node}: runs one node until SIGINT or SIGTERM, then leaves gracefully. */
@Command(name = "node",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Runs one Rattan node: the peer protocol, the binary client gateway and the HTTP/JSON gateway "
                + "(with /metrics), storing values in RocksDB under --data-dir.",
            "Without --bootstrap it founds a new overlay; with it, it joins through the first peer that answers. "
                + "SIGINT or SIGTERM makes it hand its values to their new replicas and exit 0."},
        footer = {"", "Example: rattan node --port 4100 --gateway-port 4101 --http-port 4180 "
                + "--bootstrap 127.0.0.1:4000"})
final class NodeCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private LoggingOptions logging;

    /** The logging flags, as parsed. */
    LoggingOptions logging() {
        return logging;
    }

    @Mixin
    LimitOptions limits = new LimitOptions();

    @Mixin
    WanOptions wan = new WanOptions();

    @Option(names = "--host", paramLabel = "HOST",
            description = "IP address to bind and to advertise to peers (an IP literal, not a wildcard): --bind and "
                    + "--advertise both, unless they are given.")
    String host = NodeOptions.LOOPBACK;

    @Option(names = "--advertise", paramLabel = "ADDR",
            description = "The IP address peers and one-hop clients are told to reach this node at, not a wildcard "
                    + "(default: --host). Outbound peer connections leave from it where it is this machine's: a peer "
                    + "checks that a connection comes from the address it claims.")
    String advertise;

    @Option(names = "--bind", paramLabel = "ADDR",
            description = "The IP address the three ports listen on; 0.0.0.0 or :: for every interface, which needs "
                    + "--advertise (default: the advertised address).")
    String bind;

    @Option(names = "--admin-port", paramLabel = "PORT",
            description = "A port of its own for the operator endpoints (/metrics, /node, /admin/..., /health, "
                    + "/ready; no key API), listening on --admin-bind; 0: any free port. Default: none.")
    Integer adminPort;

    @Option(names = "--admin-bind", paramLabel = "ADDR",
            description = "The IP address the admin port listens on: loopback by default, so that only this host "
                    + "reaches it.")
    String adminBind = NodeOptions.LOOPBACK;

    @Option(names = "--http-serves", paramLabel = "LIST", split = ",",
            description = "The operator endpoints the HTTP gateway serves besides /v1/keys, /health and /ready: any "
                    + "of metrics, node, admin, or none. With --admin-port, leave out "
                    + "what only operators should reach: /node lists the leaf set's addresses.")
    List<String> httpServes = new ArrayList<>(HttpSurfaces.OPERATOR_NAMES);

    @Option(names = "--port", paramLabel = "PORT", description = "Peer port (0: any free port).")
    int peerPort = 4000;

    @Option(names = "--gateway-port", paramLabel = "PORT", description = "Binary client gateway port (0: any).")
    int gatewayPort = 4001;

    @Option(names = "--http-port", paramLabel = "PORT", description = "HTTP/JSON gateway and /metrics port (0: any).")
    int httpPort = 4080;

    @Option(names = "--data-dir", paramLabel = "PATH",
            description = "Where the node keeps its id and its store; created when missing. "
                    + "Default: rattan-data/node-<port> under the current directory.")
    Path dataDir;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", split = ",",
            converter = Converters.AddressConverter.class, showDefaultValue = Help.Visibility.NEVER,
            description = "Peer address(es) to join through, tried in turn. A host name stands for all its addresses "
                    + "(a Kubernetes headless Service's, say), resolved again every 2 s until the node has joined; "
                    + "the node waits, not founding an overlay, while none resolves. None: found a new overlay.")
    List<Address> bootstrap = new ArrayList<>();

    @Option(names = "--founder-host", paramLabel = "NAME",
            description = "With a --bootstrap name shared by every node (a StatefulSet's headless Service): the node "
                    + "on the host named NAME (its HOSTNAME, e.g. pod rattan-0) founds the overlay when the name "
                    + "lists it alone three looks in a row; when it lists others it joins them, founding after all if "
                    + "three rounds of joins go unanswered or the name comes to list it alone. Others join as usual.")
    String founderHost;

    @Option(names = "--leaf-set-half", paramLabel = "N", description = "Leaf-set members on each side (1..32).")
    int leafSetHalf = NodeConfig.defaults().leafSetHalf();

    @Option(names = "--replicas", paramLabel = "K",
            description = "Copies of each value. Default: 4, or leaf-set-half+1 if smaller.")
    Integer replicas;

    @Option(names = "--write-quorum", paramLabel = "W",
            description = "Replicas that must hold a put before it is acknowledged. Default: 2, or K if smaller.")
    Integer writeQuorum;

    @Option(names = "--value-bytes-max", paramLabel = "BYTES",
            description = "Largest value this node takes from a client, 1..65536 (the wire's limit); larger puts are "
                    + "refused (HTTP 413). Give every node of an overlay the same.")
    int valueBytesMax = NodeConfig.defaults().valueBytesMax();

    @Option(names = "--ttl-seconds-max", paramLabel = "SECONDS",
            description = "Longest TTL a put may ask for, and how long a remove's tombstone lives.")
    int ttlSecondsMax = NodeConfig.defaults().ttlSecondsMax();

    @Option(names = "--request-timeout-ms", paramLabel = "MS",
            description = "How long this node, as a gateway, waits for a client request's answer before it answers "
                    + "TIMEOUT (HTTP 504); also its join timeout.")
    long requestTimeoutMillis = NodeConfig.defaults().requestTimeoutMillis();

    @Option(names = "--rto-min-ms", paramLabel = "MS",
            description = "Floor of the per-peer timeout (RTO, from each peer's measured round trips): a hop or "
                    + "question not answered within it is routed around.")
    long rtoMinMillis = NodeConfig.defaults().rtoMinMillis();

    @Option(names = "--rto-initial-ms", paramLabel = "MS",
            description = "Per-peer timeout before any round trip to that peer was measured.")
    long rtoInitialMillis = NodeConfig.defaults().rtoInitialMillis();

    @Option(names = "--rto-max-ms", paramLabel = "MS",
            description = "Cap of the per-peer timeout; also the probe and push timeout.")
    long rtoMaxMillis = NodeConfig.defaults().rtoMaxMillis();

    @Option(names = "--ids-per-ip", paramLabel = "N",
            description = "Most node ids of one host (an IPv4 address, an IPv6 /64) in the leaf set and in the "
                    + "routing table, so that one host can neither surround a key nor be most first hops; ids at "
                    + "this node's own address are not counted (a local cluster shares one). -1: no bound "
                    + "(docs/security.md).")
    int idsPerIp = NodeConfig.IDS_PER_IP_DEFAULT;

    @Option(names = "--protocol-version", paramLabel = "V",
            description = "The peer and client protocol version this node speaks: " + MessageCodec.VERSION
                    + " (the default, the newest; it also accepts peers and clients of " + MessageCodec.VERSION_OLDEST
                    + " to " + (MessageCodec.VERSION - 1) + " and answers each in the version it spoke) or an older "
                    + "one down to " + MessageCodec.VERSION_OLDEST + " (as an earlier release does). For a rolling "
                    + "upgrade (docs/deploy.md).")
    int protocolVersion = MessageCodec.VERSION;

    @Option(names = "--require-put-acks", arity = "1", paramLabel = "true|false",
            description = "Acknowledge a put through this node only when W replicas have each acknowledged their "
                    + "copy to it (since protocol 14; the default). false takes the put's root at its word, for the "
                    + "upgrade from 13, which this build does not speak: kept so that those settings still start "
                    + "(docs/deploy.md).")
    boolean requirePutAcks = true;

    @Option(names = "--require-remove-acks", arity = "1", paramLabel = "true|false",
            description = "Acknowledge a remove through this node only when W replicas have each acknowledged its "
                    + "tombstone to it (protocol 15; the default). false only while nodes of 14, which send no such "
                    + "acks, are in the cluster: the remove's root is then taken at its word (docs/deploy.md).")
    boolean requireRemoveAcks = true;

    @Option(names = "--watch-lease-ms", paramLabel = "MS",
            description = "How long this node, as a key's replica, keeps a gateway's watch registration unless it is "
                    + "renewed; as a gateway it renews at a third of it, and reads a replica again then if a push "
                    + "was lost (docs/node.md, Watches).")
    long watchLeaseMillis = WatchLimits.DEFAULTS.leaseMillis();

    @Option(names = "--watches-max", paramLabel = "N",
            description = "Most clients' watches this node serves as gateway, HTTP and binary together; past it a "
                    + "watch is refused (HTTP 429, RATE_LIMITED).")
    int watchesMax = WatchLimits.DEFAULTS.watchesMax();

    @Option(names = "--watch-registrations-max", paramLabel = "N",
            description = "Most gateways' watch registrations this node holds as a replica; a quarter of them from "
                    + "one gateway at most.")
    int watchRegistrationsMax = WatchLimits.DEFAULTS.registrationsMax();

    @Option(names = "--fsync",
            description = "Acknowledge a write only after the store's write-ahead log is synced to disk (group commit: "
                    + "concurrent puts share syncs). Off: writes survive a killed process, not a power loss "
                    + "(docs/durability.md).")
    boolean fsync;

    @Option(names = "--store-max-bytes", paramLabel = "BYTES",
            description = "Space limit for the store's SST files (RocksDB's SstFileManager); writes beyond it fail "
                    + "with STORAGE_FULL (HTTP 507) until space returns. 0: no limit (the disk's size).")
    long storeMaxBytes;

    @Option(names = "--single-node",
            description = "A one-node overlay, for a trial: puts are acknowledged with this node's own copy "
                    + "(--replicas 1 --write-quorum 1). Without it a node that founds an overlay refuses puts (503) "
                    + "until enough nodes have joined for W copies. Not with --bootstrap; join no other node to it.")
    boolean singleNode;

    @Option(names = "--slow-trace", paramLabel = "FILE",
            description = "Fault injection for experiments: a slow-node trace (the simulator's format, "
                    + "`./rattan sim opendht-table` writes one as trace.txt). During this node's periods it handles "
                    + "every input late (or drops it), as a slow host would. Needs --slow-trace-node.")
    Path slowTrace;

    @Option(names = "--slow-trace-node", paramLabel = "I",
            description = "This node's index in --slow-trace (in a `./rattan cluster`, line I of gateways.txt).")
    Integer slowTraceNode;

    @Option(names = "--slow-trace-start", paramLabel = "EPOCH_MS",
            description = "Wall-clock time (epoch milliseconds) the trace's times count from, so that several nodes "
                    + "share one clock. Default: when this node starts.")
    Long slowTraceStart;

    @Option(names = "--tls-dir", paramLabel = "DIR",
            description = "One setting for a private cluster, TLS everywhere: DIR/ca.crt is the cluster CA (as "
                    + "--tls-ca); the node's certificate and key (node.crt, node.key in --data-dir; `rattan certs node "
                    + "--san HOST` for the names clients dial) serve peers and both client ports (as --client-tls-cert "
                    + "and --client-tls-key); and where DIR holds them, " + TlsDirFiles.REVOKED + " (--tls-revoked), "
                    + TlsDirFiles.CLIENT_CA + " (--client-ca) and " + TlsDirFiles.TOKENS + " (--http-tokens). A flag "
                    + "given as well wins over its file here.")
    Path tlsDir;

    @Option(names = "--tls-ca", paramLabel = "FILE",
            description = "Mutual TLS between nodes: the cluster CA's certificate, PEM (`rattan certs ca` makes a CA). "
                    + "Every peer connection then needs a certificate of this CA for the node's own key, on both ends "
                    + "(see --tls-cert); a peer's id is its certificate's. Default: no TLS.")
    Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "With --tls-ca: this node's certificate, PEM, issued by the CA for this node's key "
                    + "(`rattan certs node --data-dir DIR` writes it). Default: node.crt in --data-dir.")
    Path tlsCert;

    @Option(names = "--tls-revoked", paramLabel = "FILE",
            description = "With --tls-ca: node ids to cut off and refuse, one per line (40 hex digits; # comments). "
                    + "The TLS files are re-read within " + PeerTls.RELOAD_SECONDS + " s of a change, no restart.")
    Path tlsRevoked;

    @Option(names = "--client-tls-cert", paramLabel = "FILE",
            description = "Serve both client ports, the binary gateway and HTTP (HTTPS), over TLS only, with this "
                    + "certificate chain, PEM: any CA's, or the node's own (`rattan certs node --san HOST`); clients "
                    + "check that it names the host they dial. Needs --client-tls-key. Re-read when it changes.")
    Path clientTlsCert;

    @Option(names = "--client-tls-key", paramLabel = "FILE",
            description = "The private key of --client-tls-cert: PKCS#8 PEM (Ed25519, EC or RSA), owner-only.")
    Path clientTlsKey;

    @Option(names = "--client-ca", paramLabel = "FILE",
            description = "With --client-tls-cert: require of every client of both client ports a TLS certificate "
                    + "issued by a CA in FILE (PEM; `rattan certs client` makes them), and count its rate and storage "
                    + "share by the certificate's name. Re-read when it changes.")
    Path clientCa;

    @Option(names = "--http-tokens", paramLabel = "FILE",
            description = "Take HTTP requests only with a bearer token of this file ('Authorization: Bearer TOKEN'; "
                    + "else 401), and count rates and storage shares per token: lines 'NAME SHA256HEX' "
                    + "(`rattan certs token` adds them). /health and /ready need none. Re-read when it changes.")
    Path httpTokens;

    @Option(names = NodeSettings.CONFIG_FLAG, paramLabel = "FILE", showDefaultValue = Help.Visibility.NEVER,
            description = "A properties file of settings, one per line as NAME = VALUE, NAME a flag's name without "
                    + "the dashes (http-port = 4080, fsync = true, bootstrap = a:4000,b:4000). Every setting may also "
                    + "come from an environment variable RATTAN_ and the name in upper snake case (RATTAN_HTTP_PORT; "
                    + "RATTAN_CONFIG names this file). A flag wins over the environment, the environment over the "
                    + "file. Fault injection (--slow-trace*, --wan*) is flags only.")
    Path config;

    @Option(names = "--print-config",
            description = "Print every setting's effective value and where it came from (flag, environment, file, "
                    + "default), then exit without starting the node.")
    boolean printConfig;

    /** The node's options from the flags; a usage error when they do not make sense together. */
    NodeOptions options() {
        try {
            NodeConfig config = singleNode ? NodeConfigs.singleNode(leafSetHalf, replicas, writeQuorum, bootstrap)
                    : NodeConfigs.of(leafSetHalf, replicas, writeQuorum);
            config = NodeConfigs.withTimeouts(
                    NodeConfigs.withClientLimits(config.withIdsPerIp(idsPerIp), valueBytesMax, ttlSecondsMax),
                    requestTimeoutMillis, rtoInitialMillis, rtoMinMillis, rtoMaxMillis).toBuilder()
                    .watch(new WatchLimits(watchLeaseMillis, watchesMax, watchRegistrationsMax,
                            Math.max(1, watchRegistrationsMax / 4))).protocolVersion(protocolVersion)
                    .putAcksRequired(requirePutAcks)
                    .removeAcksRequired(requireRemoveAcks).origin(limits.originLimits()).build();
            Path dir = dataDir != null ? dataDir : Path.of("rattan-data", "node-" + peerPort);
            if (tlsDir != null) {
                applyTlsDir(dir);
            }
            String advertised = advertise != null ? advertise : host;
            if (bind != null && advertise == null && !given("--host") && InetAddresses.isInetAddress(bind)
                    && InetAddresses.forString(bind).isAnyLocalAddress()) {
                throw new IllegalArgumentException("--bind " + bind + " listens on every interface: say --advertise "
                        + "ADDR, the address peers reach this node at");
            }
            if (founderHost != null && (founderHost.isBlank() || bootstrap.isEmpty() || singleNode || peerPort == 0)) {
                throw new IllegalArgumentException("--founder-host NAME picks the founder among nodes that share a "
                        + "--bootstrap name: give a NAME and --bootstrap, a --port other than 0, and no --single-node");
            }
            if (adminPort != null && (adminPort < 0 || adminPort > 65535)) {
                throw new IllegalArgumentException("--admin-port must be 0..65535, got " + adminPort);
            }
            return new NodeOptions(advertised, peerPort, gatewayPort, httpPort, dir, bootstrap, config)
                    .withBind(bind)
                    .withOperatorEndpoints(new OperatorEndpoints(adminBind,
                            adminPort == null ? OperatorEndpoints.NO_PORT : adminPort,
                            HttpSurfaces.ofOperatorList(httpServes)))
                    .withInboundSlowness(inboundSlowness())
                    .withPeerDelays(wan.peerDelays(new Address(advertised, peerPort)))
                    .withStorage(new RocksDbStore.Settings(fsync, storeMaxBytes))
                    .withLimits(limits.limits())
                    .withTls(tls(dir))
                    .withClientAccess(new ClientAccessFiles(clientTlsCert, clientTlsKey, httpTokens, clientCa));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** Whether {@code option} was set: as a flag, in the environment or in the config file. */
    private boolean given(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option)
                || spec.defaultValueProvider() instanceof NodeSettings s && s.sourceOf(option).isPresent();
    }

    /** {@code --tls-dir}: the files of DIR and the node's own certificate and key, where no flag names others. */
    private void applyTlsDir(Path dir) {
        TlsDirFiles files = TlsDirFiles.in(tlsDir);
        tlsCa = tlsCa != null ? tlsCa : files.ca();
        tlsRevoked = tlsRevoked != null ? tlsRevoked : files.revoked();
        Path nodeCert = tlsCert != null ? tlsCert : dir.resolve(TlsFiles.NODE_CERT);
        clientTlsCert = clientTlsCert != null ? clientTlsCert : nodeCert;
        clientTlsKey = clientTlsKey != null ? clientTlsKey : dir.resolve(NodeKeyFile.FILE_NAME);
        clientCa = clientCa != null ? clientCa : files.clientCa();
        httpTokens = httpTokens != null ? httpTokens : files.tokens();
    }

    private TlsFiles tls(Path dir) {
        if (tlsCa == null) {
            if (tlsCert != null || tlsRevoked != null) {
                throw new IllegalArgumentException("--tls-cert and --tls-revoked need --tls-ca");
            }
            return null;
        }
        return new TlsFiles(tlsCa, tlsCert != null ? tlsCert : dir.resolve(TlsFiles.NODE_CERT), tlsRevoked);
    }

    private InboundSlowness inboundSlowness() {
        if (slowTrace == null) {
            if (slowTraceNode != null || slowTraceStart != null) {
                throw new IllegalArgumentException("--slow-trace-node and --slow-trace-start need --slow-trace");
            }
            return InboundSlowness.NONE;
        }
        if (slowTraceNode == null || slowTraceNode < 0) {
            throw new IllegalArgumentException("--slow-trace needs --slow-trace-node I (I >= 0)");
        }
        try {
            return InboundSlowness.forNode(SlowTrace.read(slowTrace), slowTraceNode,
                    slowTraceStart == null ? -1 : slowTraceStart);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read --slow-trace " + slowTrace + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Integer call() throws Exception {
        NodeOptions options = options();
        PrintWriter out = spec.commandLine().getOut();
        if (printConfig) {
            out.print(EffectiveSettings.describe(spec, options));
            out.flush();
            return 0;
        }
        logging.apply(Level.INFO);
        Address self = new Address(options.host(), options.peerPort());
        Founder.Decision founding = founderHost == null ? Founder.Decision.JOIN
                : Founder.decide(founderHost, Founder.hostName(System.getenv()), options.bootstrap(), self);
        if (founding == Founder.Decision.FOUND) {
            options = options.withBootstrap(List.of());
        }
        RattanNode node = RattanNode.start(options);
        if (founding == Founder.Decision.JOIN_OR_FOUND) {
            node.call(n -> {
                n.foundIfUnanswered(Founder.ROUNDS);
                return null;
            });
            Founder.foundWhenAloneInBackground(options.bootstrap(), self, () -> node.isJoined() || !node.isRunning(),
                    () -> node.call(n -> {
                        n.foundIfUnanswered(0);
                        return null;
                    }));
        }
        out.println("node " + node.contact().id().toHex()
                + " peer " + node.contact().address()
                + " gateway " + Addresses.of(node.gatewayAddress())
                + " http http://" + Addresses.of(node.httpAddress())
                + " data " + options.dataDir());
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        return UntilStopped.await(out, node::close, node.joinRefused().thenApply(why -> {
            err.println("rattan node: the cluster refused this node: " + why);
            err.flush();
            return RattanCli.EXIT_CONFIG;
        }));
    }
}
