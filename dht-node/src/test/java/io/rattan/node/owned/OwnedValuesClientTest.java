package io.rattan.node.owned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.rattan.client.GetResult;
import io.rattan.client.OwnerKey;
import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.client.SwapResult;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Address;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    @Test
    void theClientSignsReplacesBySequenceAndSwapsOnlyTheVersionItNames() {
        PutResult first = client.putOwnedSync(KEY, utf8("v1"), owner, 9, 1, expiry);
        assertThat(first.replicas()).isGreaterThanOrEqualTo(2);
        assertThat(client.putOwnedSync(KEY, utf8("v2"), owner, 9, 2, expiry).replicas()).isGreaterThanOrEqualTo(2);
        await().atMost(WAIT).until(() -> client.getSync(KEY).values().stream().map(GetResult.Value::utf8).toList()
                .equals(java.util.List.of("v2")));
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
    }
}
