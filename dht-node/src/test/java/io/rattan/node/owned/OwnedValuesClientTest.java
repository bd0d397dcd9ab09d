package io.rattan.node.owned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.GetResult;
import io.rattan.client.OwnerKey;
import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.client.SwapResult;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.cli.RattanCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Owned values through the Java client on real nodes (binary RPC, Netty, RocksDB): the client signs with an
 * {@link OwnerKey} that never leaves it, replaces by sequence, and swaps only the version it names.
 */
class OwnedValuesClientTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final NodeConfig CONFIG = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);
    private static final Id KEY = Id.ofName("owned-by-the-java-client");

    @TempDir
    Path dir;
    private LocalCluster cluster;
    private RattanClient client;
    private final OwnerKey owner = OwnerKey.generate();
    private final Instant expiry = Instant.now().plus(Duration.ofHours(1));

    @BeforeEach
    void start() throws IOException {
        cluster = LocalCluster.start(4, dir, CONFIG);
        client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", cluster.node(1).gatewayAddress().getPort())).build();
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@code rattan put --owner-key}: the CLI signs with a key file and swaps with --if-seq and --if-absent; and
     * {@code rattan rm --owner-key} removes the value.
     */
    @Test
    void theCommandLinePutsAndSwapsOwnedValues() throws IOException {
        Path key = dir.resolve("owner.pem");
        owner.write(key);
        String gw = "127.0.0.1:" + cluster.node(2).gatewayAddress().getPort();
        String[] base = {"put", "-g", gw, "name:cli-owned", "--owner-key", key.toString(), "--value-id", "5"};
        Cli created = cli(base, "first", "--seq", "1", "--if-absent");
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(created.out()).contains("swapped in sequence 1 of value 5 of owner " + owner.publicKeyBase64Url());
        Cli swapped = cli(base, "second", "--seq", "2", "--if-seq", "1");
        assertThat(swapped.exit()).as(swapped.err()).isZero();
        Cli late = cli(base, "late", "--seq", "2", "--if-seq", "1");
        assertThat(late.exit()).isEqualTo(1);
        assertThat(late.err()).contains("not swapped: sequence 2 is held");
        Cli plain = cli(base, "third", "--seq", "3", "--ttl", "600");
        assertThat(plain.exit()).as(plain.err()).isZero();
        assertThat(plain.out()).contains("stored sequence 3");
        Cli stale = cli(base, "older", "--seq", "1");
        assertThat(stale.exit()).isEqualTo(1);
        assertThat(stale.err()).contains("CONFLICT");
        assertThat(client.getSync(RattanClient.key("cli-owned")).values()).extracting(GetResult.Value::utf8)
                .containsExactly("third");

        // rattan rm --owner-key: the owner's signed remove, above the value's sequence only.
        String[] rm = {"rm", "-g", gw, "name:cli-owned", "--owner-key", key.toString(), "--value-id", "5"};
        Cli notAbove = cli(rm, "--seq", "3");
        assertThat(notAbove.exit()).isEqualTo(1);
        assertThat(notAbove.err()).contains("refused", "CONFLICT");
        Cli removed = cli(rm, "--seq", "4");
        assertThat(removed.exit()).as(removed.err()).isZero();
        assertThat(removed.out()).contains("removed value 5 of owner " + owner.publicKeyBase64Url());
        await().atMost(WAIT).until(() -> client.getSync(RattanClient.key("cli-owned")).values().isEmpty());
    }

    private record Cli(int exit, String out, String err) {
    }

    private static Cli cli(String[] base, String value, String... more) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = RattanCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] args = Stream.of(Arrays.stream(base), Stream.of(value), Arrays.stream(more)).flatMap(x -> x)
                .toArray(String[]::new);
        int exit = cl.execute(args);
        return new Cli(exit, out.toString(), err.toString());
    }

    @Test
    void theClientSignsReplacesBySequenceAndSwapsOnlyTheVersionItNames() {
        PutResult first = client.putOwnedSync(KEY, utf8("v1"), owner, 9, 1, expiry);
        assertThat(first.replicas()).isGreaterThanOrEqualTo(2);
        assertThat(client.putOwnedSync(KEY, utf8("v2"), owner, 9, 2, expiry).replicas()).isGreaterThanOrEqualTo(2);
        await().atMost(WAIT).until(() -> client.getSync(KEY).values().stream().map(GetResult.Value::utf8).toList()
                .equals(List.of("v2")));
        assertThatThrownBy(() -> client.putOwnedSync(KEY, utf8("old"), owner, 9, 1, expiry))
                .isInstanceOfSatisfying(RattanException.class, e -> assertThat(e.status()).isEqualTo(Status.CONFLICT));
        assertThatThrownBy(() -> client.putOwnedSync(KEY, utf8("v"), owner, 9, 3, Instant.now().minusSeconds(5)))
                .isInstanceOfSatisfying(RattanException.class, e -> assertThat(e.status()).isEqualTo(Status.FORBIDDEN));

        SwapResult lost = client.compareAndSetSync(KEY, utf8("v3"), owner, 9, 1L, 3, expiry);
        assertThat(lost).isEqualTo(new SwapResult(false, 2L, 0));
        SwapResult won = client.compareAndSetSync(KEY, utf8("v3"), owner, 9, 2L, 3, expiry);
        assertThat(won.swapped()).isTrue();
        assertThat(won.currentSeq()).isEqualTo(3L);
        assertThat(client.compareAndSetSync(KEY, utf8("v3"), owner, 9, 2L, 3, expiry).swapped())
                .as("the same swap again").isTrue();
        assertThat(client.compareAndSetSync(KEY, utf8("new"), owner, 10, null, 1, expiry).swapped())
                .as("a value id not held yet").isTrue();
        assertThat(client.compareAndSetSync(KEY, utf8("again"), owner, 10, null, 2, expiry))
                .isEqualTo(new SwapResult(false, 1L, 0));

        // A get hands over each owned value with its owner's stamp, checked here against the key asked for.
        await().atMost(WAIT).until(() -> client.getSync(KEY).values().size() == 2);
        GetResult.Value v3 = client.getSync(KEY).values().stream().filter(v -> v.owner().valueId() == 9)
                .findFirst().orElseThrow();
        assertThat(v3.utf8()).isEqualTo("v3");
        assertThat(v3.owner().seq()).isEqualTo(3);
        assertThat(v3.owner().owner()).isEqualTo(owner.publicKey());
        assertThat(v3.owner().expiresAtSeconds()).isEqualTo(expiry.getEpochSecond());

        assertThatThrownBy(() -> client.removeOwnedSync(KEY, owner, 9, 3, expiry)).as("not above the value's")
                .isInstanceOfSatisfying(RattanException.class, e -> assertThat(e.status()).isEqualTo(Status.CONFLICT));
        assertThat(client.removeOwnedSync(KEY, owner, 9, 4, expiry)).isGreaterThanOrEqualTo(2);
        await().atMost(WAIT).until(() -> client.getSync(KEY).values().stream().map(GetResult.Value::utf8).toList()
                .equals(List.of("new")));
        assertThatThrownBy(() -> client.putOwnedSync(KEY, utf8("v3"), owner, 9, 3, expiry)).as("under the tombstone")
                .isInstanceOfSatisfying(RattanException.class, e -> assertThat(e.status()).isEqualTo(Status.CONFLICT));

        // Two owners holding the same bytes under one key are two values.
        Id shared = RattanClient.key("same bytes, two owners");
        client.putOwnedSync(shared, utf8("same"), owner, 1, 1, expiry);
        client.putOwnedSync(shared, utf8("same"), OwnerKey.generate(), 1, 1, expiry);
        await().atMost(WAIT).until(() -> client.getSync(shared).values().size() == 2);
    }
}
