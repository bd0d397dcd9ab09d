package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.client.OwnerKey;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.wan.HostAssignment;
import io.rattan.node.NodeOptions;
import io.rattan.node.transport.PeerDelays;
import io.rattan.node.transport.WanDelays;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Flag parsing and validation of every subcommand; nothing here starts a node. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RattanCliTest {

    private static final String HEX = "0123456789abcdef0123456789abcdef01234567";
    private static final String HASH = Bytes.utf8("v").sha256().toHex();

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    private static <T> T parse(Class<T> type, String... args) {
        CommandLine cl = RattanCli.commandLine();
        CommandLine.ParseResult result = cl.parseArgs(args);
        return type.cast(result.subcommand().commandSpec().userObject());
    }

    // ---- the root

    @Test
    void noSubcommandPrintsUsageListingEveryCommand() {
        CliRun r = run();
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("Usage: rattan", "node", "local", "put", "get", "rm", "keygen", "demo",
                "Exit codes");
    }

    @Test
    void versionComesFromTheConstant() {
        CliRun r = run("--version");
        assertThat(r.exit()).isZero();
        assertThat(r.out().trim()).isEqualTo("rattan " + RattanCli.VERSION);
        assertThat(run("put", "--version").out().trim()).isEqualTo("rattan " + RattanCli.VERSION);
    }

    @Test
    void everySubcommandHasHelpWithDescriptionsAndDefaults() {
        String[][] cases = {
            {"node", "Runs one Rattan node", "--bootstrap", "Default: 4000", "Default: 4080", "Default: 8"},
            {"local", "Runs a cluster of nodes", "--base-dir", "Default: 8"},
            {"put", "Stores a value", "--ttl", "Default: 3600", "Default: 127.0.0.1:4001"},
            {"get", "Prints every live value", "Default: 127.0.0.1:4001", "--routing"},
            {"rm", "Removes one value", "--secret", "Default: 604800"},
            {"keygen", "Makes a new owner key", "--out", "--show", "PKCS#8 PEM"},
            {"demo", "Starts a local cluster", "--seed", "Default: 1000", "Default: 3"},
        };
        for (String[] c : cases) {
            CliRun r = run(c[0], "--help");
            assertThat(r.exit()).as(c[0]).isZero();
            for (int i = 1; i < c.length; i++) {
                assertThat(r.out()).as(c[0]).contains(c[i]);
            }
            assertThat(r.out()).as(c[0]).doesNotContain("Default: []").doesNotContain("Default: null");
        }
    }

    @Test
    void anUnknownSubcommandIsAUsageError() {
        CliRun r = run("frobnicate");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Unmatched argument");
    }

    // ---- node

    @Test
    void nodeFlagsBecomeNodeOptions() {
        NodeCommand c = parse(NodeCommand.class, "node", "--host", "10.0.0.5", "--port", "5000", "--gateway-port",
                "5001", "--http-port", "5080", "--data-dir", "/tmp/x", "--bootstrap", "10.0.0.1:4000,[::1]:4001",
                "--bootstrap", "10.0.0.3:1", "--leaf-set-half", "4", "--replicas", "3", "--write-quorum", "1");
        NodeOptions o = c.options();
        assertThat(o.host()).isEqualTo("10.0.0.5");
        assertThat(o.peerPort()).isEqualTo(5000);
        assertThat(o.gatewayPort()).isEqualTo(5001);
        assertThat(o.httpPort()).isEqualTo(5080);
        assertThat(o.dataDir()).isEqualTo(Path.of("/tmp/x"));
        assertThat(o.bootstrap()).containsExactly(new Address("10.0.0.1", 4000), new Address("::1", 4001),
                new Address("10.0.0.3", 1));
        assertThat(o.config().leafSetHalf()).isEqualTo(4);
        assertThat(o.config().replicas()).isEqualTo(3);
        assertThat(o.config().writeQuorum()).isEqualTo(1);
        assertThat(o.config().valueBytesMax()).isEqualTo(NodeConfig.defaults().valueBytesMax());
        assertThat(o.config().idsPerIp()).isEqualTo(NodeConfig.IDS_PER_IP_DEFAULT);
    }

    @Test
    void theIdsPerIpBoundIsSettableAndTurnsOffWithMinusOne() {
        assertThat(parse(NodeCommand.class, "node", "--ids-per-ip", "1").options().config().idsPerIp()).isEqualTo(1);
        assertThat(parse(NodeCommand.class, "node", "--ids-per-ip", "-1").options().config().idsPerIp())
                .isEqualTo(-1);
    }

    @Test
    void nodeDefaults() {
        NodeOptions o = parse(NodeCommand.class, "node").options();
        assertThat(o.host()).isEqualTo("127.0.0.1");
        assertThat(List.of(o.peerPort(), o.gatewayPort(), o.httpPort())).containsExactly(4000, 4001, 4080);
        assertThat(o.dataDir()).isEqualTo(Path.of("rattan-data", "node-4000"));
        assertThat(o.bootstrap()).isEmpty();
        assertThat(o.config()).isEqualTo(NodeConfig.defaults());
    }

    @Test
    void aSmallLeafSetShrinksTheDefaultReplicaCount() {
        NodeConfig c = parse(NodeCommand.class, "node", "--leaf-set-half", "2").options().config();
        assertThat(c.replicas()).isEqualTo(3);
        assertThat(c.writeQuorum()).isEqualTo(2);
        NodeConfig one = parse(NodeCommand.class, "node", "--leaf-set-half", "1", "--replicas", "1").options()
                .config();
        assertThat(one.writeQuorum()).isEqualTo(1);
    }

    @Test
    void bootstrapNamesStayNamesAndIpv6GoesInBrackets() {
        // A name is resolved by the node, off its loop and again until it has joined (BootstrapResolver).
        NodeCommand c = parse(NodeCommand.class, "node", "--bootstrap", "[fe80::1]:4000,10.0.0.2:4001,localhost:4002");
        assertThat(c.options().bootstrap()).extracting(Address::toString)
                .containsExactly("[fe80::1]:4000", "10.0.0.2:4001", "localhost:4002");
        assertThat(parse(NodeCommand.class, "node", "--host", "::1").options().host()).isEqualTo("::1");
    }

    @Test
    void nodeRejectsBadFlagsAsUsageErrors() {
        Object[][] cases = {
            {new String[] {"node", "--bootstrap", "nohostport"}, "'nohostport' is not host:port"},
            {new String[] {"node", "--bootstrap", "10.0.0.1:99999"}, "'10.0.0.1:99999' is not host:port"},
            {new String[] {"node", "--bootstrap", "10.0.0.1:1,:2"}, "':2' is not host:port"},
            {new String[] {"node", "--bootstrap", "fe80::1:4000"}, "'fe80::1:4000' is not host:port"},
            {new String[] {"node", "--host", "localhost"}, "not an IP literal"},
            {new String[] {"node", "--port", "x"}, "'x' is not an int"},
            {new String[] {"node", "--port", "70000"}, "peerPort must be 0..65535"},
            {new String[] {"node", "--port", "4000", "--http-port", "4000"}, "ports must differ"},
            {new String[] {"node", "--host", "0.0.0.0"}, "wildcard"},
            {new String[] {"node", "--leaf-set-half", "2", "--replicas", "4"}, "replicas (k) must be"},
            {new String[] {"node", "--replicas", "2", "--write-quorum", "3"}, "writeQuorum must be"},
            {new String[] {"node", "--leaf-set-half", "0"}, "--leaf-set-half must be at least 1"},
            {new String[] {"node", "--leaf-set-half", "33"}, "leafSetHalf must be 1..32"},
            {new String[] {"node", "--ids-per-ip", "0"}, "idsPerIp must be -1 (no bound) or at least 1"},
            {new String[] {"node", "--nonsense"}, "Unknown option"},
            {new String[] {"node", "--slow-trace", "t.txt"}, "--slow-trace needs --slow-trace-node"},
            {new String[] {"node", "--slow-trace-node", "1"}, "need --slow-trace"},
            {new String[] {"node", "--slow-trace", "/nonexistent/t.txt", "--slow-trace-node", "0"},
                "cannot read --slow-trace"},
            {new String[] {"node", "--wan-node", "0"}, "--wan-seed, --wan-node and --wan-peers need --wan"},
            {new String[] {"node", "--wan-seed", "3"}, "need --wan"},
            {new String[] {"node", "--wan", "planetlab", "--wan-peers", "127.0.0.1:4000"}, "--wan needs --wan-node"},
            {new String[] {"node", "--wan", "planetlab", "--wan-node", "0"}, "--wan needs --wan-peers"},
            {new String[] {"node", "--wan", "planetlab", "--wan-node", "2", "--wan-peers",
                "127.0.0.1:4000,127.0.0.1:4003"}, "--wan-node 2 is out of range: --wan-peers lists 2 nodes"},
            {new String[] {"node", "--wan", "planetlab", "--wan-node", "-1", "--wan-peers", "127.0.0.1:4000"},
                "--wan-node -1 is out of range"},
            {new String[] {"node", "--wan", "planetlab", "--wan-node", "0", "--wan-peers", "127.0.0.1:4003"},
                "--wan-peers entry 0 is 127.0.0.1:4003, not this node's peer address 127.0.0.1:4000"},
            {new String[] {"node", "--wan", "planetlab", "--wan-node", "0", "--wan-peers", "127.0.0.1:4000,x"},
                "'x' is not host:port"},
            {new String[] {"node", "--wan", "/nonexistent/m.tsv", "--wan-node", "0", "--wan-peers",
                "127.0.0.1:4000"}, "cannot read --wan matrix /nonexistent/m.tsv: no such file"},
        };
        for (Object[] c : cases) {
            CliRun r = run((String[]) c[0]);
            assertThat(r.exit()).as(String.join(" ", (String[]) c[0])).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", (String[]) c[0])).contains((String) c[1]).contains("Usage:");
        }
    }

    @Test
    void wanFlagsGiveTheNodeItsPeersDelays() {
        NodeCommand c = parse(NodeCommand.class, "node", "--port", "7403", "--wan", "planetlab", "--wan-seed", "5",
                "--wan-node", "1", "--wan-peers", "127.0.0.1:7400,127.0.0.1:7403,localhost:7406");
        PeerDelays delays = c.options().peerDelays();
        assertThat(delays).isInstanceOf(WanDelays.class);
        WanDelays wan = (WanDelays) delays;
        HostAssignment sim = HostAssignment.random(3, 490, 5);
        assertThat(wan.hostOf(new Address("127.0.0.1", 7406))).isEqualTo(sim.hostOf(2));
        assertThat(wan.toString()).startsWith("wide area: node 1 of 3 on host " + sim.hostOf(1) + " of 490, seed 5");
        assertThat(parse(NodeCommand.class, "node", "--port", "0", "--wan", "planetlab", "--wan-node", "0",
                "--wan-peers", "127.0.0.1:7400").options().peerDelays().toString()).contains("seed 1,");
        assertThat(parse(NodeCommand.class, "node").options().peerDelays()).isSameAs(PeerDelays.NONE);
    }

    @Test
    void aMalformedWanMatrixIsAUsageErrorNamingItsLine(@TempDir Path dir) throws IOException {
        Path matrix = dir.resolve("m.tsv");
        Files.writeString(matrix, "0\t80\n80\n");
        CliRun r = run("node", "--wan", matrix.toString(), "--wan-node", "0", "--wan-peers", "127.0.0.1:4000");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--wan matrix m.tsv line 2: expected 2 values");
        Files.writeString(matrix, "0\t80\n80\t0\n");
        assertThat(parse(NodeCommand.class, "node", "--wan", matrix.toString(), "--wan-node", "1", "--wan-peers",
                "127.0.0.1:4003,127.0.0.1:4000").options().peerDelays().delayNanos(new Address("127.0.0.1", 4003)))
                .as("half of 80 ms, with jitter of sigma 4 ms").isBetween(20_000_000L, 60_000_000L);
    }

    // ---- keygen

    @Test
    void keygenWritesAKeyShowsItsPublicHalfAndNeverOverwrites(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("owner.pem");
        CliRun made = run("keygen", "--out", file.toString());
        assertThat(made.exit()).as(made.err()).isZero();
        assertThat(made.err()).contains("wrote a new owner key to " + file);
        String publicKey = made.out().strip();
        assertThat(publicKey).isEqualTo(OwnerKey.load(file).publicKeyBase64Url()).hasSize(43);

        CliRun shown = run("keygen", "--show", file.toString());
        assertThat(shown.exit()).isZero();
        assertThat(shown.out().strip()).isEqualTo(publicKey);

        String before = Files.readString(file);
        CliRun again = run("keygen", "--out", file.toString());
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).contains("exists; a key is never overwritten");
        assertThat(Files.readString(file)).isEqualTo(before);

        Files.writeString(dir.resolve("junk"), "junk");
        CliRun junk = run("keygen", "--show", dir.resolve("junk").toString());
        assertThat(junk.exit()).isEqualTo(1);
        assertThat(junk.err()).contains("holds no Ed25519 private key");
        assertThat(run("keygen").exit()).isEqualTo(2);
        assertThat(run("keygen", "--out", file.toString(), "--show", file.toString()).err())
                .contains("mutually exclusive");
    }

    // ---- put, get, rm

    @Test
    void keysParseInBothForms() {
        assertThat(parse(GetCommand.class, "get", HEX).key).isEqualTo(Id.fromHex(HEX));
        assertThat(parse(GetCommand.class, "get", "name:hello world").key).isEqualTo(Id.ofName("hello world"));
        PutCommand put = parse(PutCommand.class, "put", "-g", "a:1,b:2", "name:k", "v", "--ttl", "60",
                "--secret", "s");
        assertThat(put.key).isEqualTo(Id.ofName("k"));
        assertThat(put.gateway.gateways).containsExactly(new Address("a", 1), new Address("b", 2));
        assertThat(put.ttlSeconds).isEqualTo(60);
        assertThat(put.secret).isEqualTo("s");
        RmCommand rm = parse(RmCommand.class, "rm", HEX, HASH.toUpperCase(), "--secret", "s");
        assertThat(rm.valueHash).isEqualTo(Bytes.fromHex(HASH));
        assertThat(rm.ttlSeconds).isEqualTo(NodeConfig.defaults().ttlSecondsMax());
        assertThat(rm.gateway.gateways).containsExactly(new Address("127.0.0.1", 4001));
    }

    @Test
    void clientCommandsRejectBadArgumentsBeforeConnecting() {
        Object[][] cases = {
            {new String[] {"get", "abc"}, "neither 40 hex digits"},
            {new String[] {"get", "g" + HEX.substring(1)}, "character 1 is 'g'"},
            {new String[] {"get", "name:"}, "no text after the colon"},
            {new String[] {"get"}, "Missing required parameter: 'KEY'"},
            {new String[] {"get", "--gateway", "localhost", HEX}, "'localhost' is not host:port"},
            {new String[] {"get", "--timeout", "0", HEX}, "--timeout must be at least 1 second"},
            {new String[] {"put", "abc", "v"}, "neither 40 hex digits"},
            {new String[] {"put", HEX}, "Missing required parameter: 'VALUE'"},
            {new String[] {"put", HEX, ""}, "the value is empty"},
            {new String[] {"put", HEX, "v", "--ttl", "0"}, "--ttl must be at least 1 second"},
            {new String[] {"put", HEX, "v", "--ttl", "soon"}, "'soon' is not an int"},
            {new String[] {"put", HEX, "v", "--secret", ""}, "--secret must not be empty"},
            {new String[] {"put", HEX, "v", "--value-id", "1"}, "need --owner-key"},
            {new String[] {"put", HEX, "v", "--owner-key", "k.pem", "--seq", "1"}, "needs --value-id and --seq"},
            {new String[] {"put", HEX, "v", "--owner-key", "k.pem", "--value-id", "1", "--seq", "1", "--secret",
                "s"}, "drop --secret"},
            {new String[] {"put", HEX, "v", "--owner-key", "k.pem", "--value-id", "1", "--seq", "2", "--if-seq",
                "1", "--if-absent"}, "not both"},
            {new String[] {"put", HEX, "v", "--owner-key", "k.pem", "--value-id", "1", "--seq", "-1"},
                "unsigned decimal number below 2^64, got '-1'"},
            {new String[] {"rm", HEX, HASH}, "give VALUE_HASH and --secret, or --owner-key with --value-id and --seq"},
            {new String[] {"rm", HEX, HASH.substring(1), "--secret", "s"}, "64 hex digits"},
            {new String[] {"rm", HEX, "--secret", "s"}, "give VALUE_HASH and --secret, or --owner-key"},
            {new String[] {"rm", HEX, HASH, "--owner-key", "k.pem", "--value-id", "1", "--seq", "2"},
                "no VALUE_HASH or --secret"},
            {new String[] {"rm", HEX, "--owner-key", "k.pem", "--seq", "2"}, "--owner-key takes --value-id and --seq"},
            {new String[] {"rm", HEX, "--owner-key", "k.pem", "--value-id", "1", "--seq", "2", "--legacy-secret"},
                "--legacy-secret is for a value put with --secret"},
            {new String[] {"rm", HEX, "--owner-key", "k.pem", "--value-id", "x", "--seq", "2"},
                "unsigned decimal number"},
            {new String[] {"rm", "bad", HASH, "--secret", "s"}, "neither 40 hex digits"},
            {new String[] {"rm", HEX, HASH, "--secret", ""}, "--secret must not be empty"},
            {new String[] {"rm", HEX, HASH, "--secret", "s", "--ttl", "-1"}, "--ttl must be at least 1 second"},
        };
        for (Object[] c : cases) {
            CliRun r = run((String[]) c[0]);
            assertThat(r.exit()).as(String.join(" ", (String[]) c[0])).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", (String[]) c[0])).contains((String) c[1]);
        }
    }

    @Test
    void anUnreachableGatewayIsAFailureOnStderrWithExit1() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        // Refused connections end the call after its retries, well within the timeout; a short timeout would let a
        // loaded machine end it first, as TIMEOUT.
        CliRun r = run("get", "--gateway", "127.0.0.1:" + port, "--timeout", "30", "name:x");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: ").contains("UNAVAILABLE").doesNotContain("\tat ");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void getModeFlagsBecomeGetOptions() {
        assertThat(parse(GetCommand.class, "get", HEX).options()).isEqualTo(GetOptions.defaults());
        assertThat(parse(GetCommand.class, "get", "--routing", "iterative", "--p", "2", "--no-hedge", HEX).options())
                .isEqualTo(GetOptions.of(RoutingMode.ITERATIVE).withParallelism(2));
        assertThat(parse(GetCommand.class, "get", "--routing", "greedy", "--gateways", "3", "--hedge", HEX)
                .options()).isEqualTo(GetOptions.of(RoutingMode.GREEDY).withGateways(3).withHedge(true));
        assertThat(parse(GetCommand.class, "get", "--onehop", "--no-hedge", HEX).options())
                .isEqualTo(GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true));
        assertThat(run("get", "--help").out()).contains("--gateways", "--[no-]hedge", "--p", "iterative", "--onehop",
                "--quorum");
        assertThat(parse(GetCommand.class, "get", "--quorum", HEX).options())
                .isEqualTo(GetOptions.defaults().withQuorum(0));
        assertThat(parse(GetCommand.class, "get", "--quorum", "--r", "4", "--no-hedge", HEX).options())
                .isEqualTo(GetOptions.defaults().withHedge(false).withQuorum(4));
        CliRun quorumIterative = run("get", "--routing", "iterative", "--quorum", "--no-hedge", HEX);
        assertThat(quorumIterative.exit()).isEqualTo(2);
        assertThat(quorumIterative.err()).contains("--quorum is read by a replica");
        CliRun rAlone = run("get", "--r", "2", HEX);
        assertThat(rAlone.exit()).isEqualTo(2);
        assertThat(rAlone.err()).contains("use it with --quorum");
    }

    @Test
    void badGetModeFlagsAreUsageErrors() {
        String[][] cases = {
            {"--gateways", "0", "--gateways must be 1..8, got 0"},
            {"--gateways", "9", "--gateways must be 1..8, got 9"},
            {"--p", "2", "use it with --routing iterative"},
            {"--routing", "fastest", "routing must be greedy, delay-aware or iterative"},
        };
        for (String[] c : cases) {
            CliRun r = run("get", c[0], c[1], HEX);
            assertThat(r.exit()).as(c[0] + " " + c[1]).isEqualTo(2);
            assertThat(r.err()).contains(c[2]);
        }
        CliRun r = run("get", "--routing", "iterative", "--p", "17", HEX);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--p must be 1..16, got 17");
        CliRun oneHopIterative = run("get", "--routing", "iterative", "--onehop", HEX);
        assertThat(oneHopIterative.exit()).isEqualTo(2);
        assertThat(oneHopIterative.err()).contains("--onehop goes straight to a replica");
    }

    @Test
    void getPrintsTextAsTextAndEverythingElseAsBase64() {
        assertThat(GetCommand.printable("hello wörld".getBytes(StandardCharsets.UTF_8))).isEqualTo("hello wörld");
        assertThat(GetCommand.printable(new byte[] {'a', '\n', 'b'})).isEqualTo("base64:YQpi");
        assertThat(GetCommand.printable(new byte[] {(byte) 0xC3})).isEqualTo("base64:ww==");
        assertThat(GetCommand.printable(new byte[] {0, 1, 2})).isEqualTo("base64:AAEC");
    }

    // ---- local and demo

    @Test
    void clusterCommandsRejectBadSizes() {
        Object[][] cases = {
            {new String[] {"local", "--nodes", "0"}, "--nodes must be 1..64"},
            {new String[] {"local", "--nodes", "65"}, "--nodes must be 1..64"},
            {new String[] {"local", "--leaf-set-half", "0"}, "--leaf-set-half must be at least 1"},
            {new String[] {"demo", "--nodes", "0"}, "--nodes must be 1..64"},
            {new String[] {"demo", "--puts", "0"}, "--puts must be 1..100000"},
            {new String[] {"demo", "--leaf-set-half", "40"}, "leafSetHalf must be 1..32"},
            {new String[] {"demo", "--seed", "abc"}, "'abc' is not a long"},
        };
        for (Object[] c : cases) {
            CliRun r = run((String[]) c[0]);
            assertThat(r.exit()).as(String.join(" ", (String[]) c[0])).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", (String[]) c[0])).contains((String) c[1]);
        }
    }

    @Test
    void demoDefaultsRouteForReal() {
        DemoCommand demo = parse(DemoCommand.class, "demo");
        NodeConfig c = demo.config();
        assertThat(demo.nodes).isEqualTo(8);
        assertThat(demo.puts).isEqualTo(1000);
        assertThat(demo.seed).isNull();
        // 8 nodes with 3 per side is not a full mesh, and it holds the default k = 4 replicas.
        assertThat(c.leafSetHalf()).isEqualTo(3);
        assertThat(c.replicas()).isEqualTo(4);
    }

    @Test
    void nodeConfigsExplainAnImpossibleCombination() {
        assertThatThrownBy(() -> NodeConfigs.of(2, 4, null))
                .hasMessageContaining("leaf set 2 per side, 4 replicas, write quorum 2");
        assertThat(NodeConfigs.of(8, null, null)).isEqualTo(NodeConfig.defaults());
    }
}
