package io.rattan.node.gateway.binary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.client.RattanClient;
import io.rattan.core.codec.MessageCodec;
import io.rattan.node.NodeOptions;
import io.rattan.node.RattanNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client in a rolling upgrade, against real nodes' binary gateways: a client told to speak the older protocol
 * version puts and gets through a gateway of either version (an upgraded one answers it in its own), and a client of
 * the newest version is refused by a gateway of the older one, so the nodes go first.
 */
class ClientVersionsTest {

    private static final long WAIT_SECONDS = 60;

    @TempDir
    Path dir;

    @Test
    void aClientOfTheOlderVersionIsServedByGatewaysOfBoth() throws Exception {
        for (int version : new int[] {MessageCodec.VERSION, MessageCodec.VERSION_OLDEST}) {
            try (RattanNode node = start("node-" + version, version);
                 RattanClient client = client(node, MessageCodec.VERSION_OLDEST)) {
                Id key = Id.ofName("key-" + version);
                byte[] value = ("at " + version).getBytes(StandardCharsets.UTF_8);
                client.put(key, value, Duration.ofMinutes(5)).get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(client.get(key).get(WAIT_SECONDS, TimeUnit.SECONDS).values())
                        .extracting(v -> v.value()).containsExactly(Bytes.wrap(value));
            }
        }
    }

    @Test
    void aGatewayOfTheOlderVersionRefusesAClientOfTheNewest() throws Exception {
        try (RattanNode node = start("old", MessageCodec.VERSION_OLDEST);
             RattanClient client = client(node, MessageCodec.VERSION)) {
            assertThatThrownBy(() -> client.get(Id.ofName("key")).get(WAIT_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class);
        }
    }

    private RattanNode start(String name, int version) throws Exception {
        NodeOptions options = NodeOptions.singleNode(dir.resolve(name));
        return RattanNode.start(options.withConfig(options.config().toBuilder().protocolVersion(version).build()));
    }

    private static RattanClient client(RattanNode node, int version) {
        return RattanClient.builder().gateway("127.0.0.1:" + node.gatewayAddress().getPort())
                .protocolVersion(version).attemptTimeout(Duration.ofSeconds(5)).totalTimeout(Duration.ofSeconds(20))
                .maxRetries(1).build();
    }
}
