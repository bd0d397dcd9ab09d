package io.rattan.node.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.hostile.LeafSetFloodTest.FakeHost;
import io.rattan.node.netty.TestMessages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eclipse by slots on real sockets (issue 39, item 5): one host proves an id for every slot of a node's first
 * routing-table row and speaks from each, so that each is a first-hand contact its slot would take, and the fastest
 * of its slot if it answered at once. It must hold at most N ({@code idsPerIp}) places in the whole table, so that
 * it is the first hop of at most N slots; per slot, as the bound was, it held all fifteen.
 */
class SlotCaptureTest {

    private static final String ATTACKER_IP = "127.0.0.7";
    private static final NodeConfig CONFIG = NodeConfig.defaults();
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void oneHostHoldsAtMostNPlacesInAWholeRoutingTable() throws Exception {
        int n = CONFIG.idsPerIp();
        try (HostileCluster nodes = HostileCluster.start(3, dir, CONFIG);
             FakeHost attacker = new FakeHost(ATTACKER_IP)) {
            RattanNode node = nodes.cluster.node(0);
            await().atMost(WAIT).until(() -> node.status().routingEntries() == 2);
            int honest = node.status().routingEntries();
            List<FakeHost.Fake> fakes = new ArrayList<>();
            int ownDigit = node.contact().id().digit(0);
            for (int digit = 0; digit < 16; digit++) {
                if (digit != ownDigit) {
                    fakes.add(attacker.fake(keyWithFirstDigit(digit)));
                }
            }
            // The fakes never answer the node's probes, so it drops them again after a few timeouts: watch the most
            // the table held, from the first fake's ping until two seconds after the host had its share.
            AtomicInteger most = new AtomicInteger();
            IntSupplier entries = () -> most.accumulateAndGet(node.status().routingEntries(), Math::max);
            for (FakeHost.Fake f : fakes) {
                f.prove(node);
                f.send(node, new Ping());
                entries.getAsInt();
            }
            await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> entries.getAsInt() >= honest + n);
            long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (System.nanoTime() < until) {
                entries.getAsInt();
                Thread.sleep(20);
            }
            assertThat(most.get()).as("the most entries of a table with %d honest ones", honest)
                    .isLessThanOrEqualTo(honest + n);
        }
    }

    /**
     * A key whose id's first hex digit is {@code digit}: a node whose own is another sits it in row 0, column digit.
     * Ids are hashes of keys, so it draws keys until one fits: 16 draws on average.
     */
    private static NodeKey keyWithFirstDigit(int digit) {
        for (int i = 0; ; i++) {
            NodeKey key = TestMessages.key("slot-capture-" + digit + "-" + i);
            if (key.id().digit(0) == digit) {
                return key;
            }
        }
    }
}
