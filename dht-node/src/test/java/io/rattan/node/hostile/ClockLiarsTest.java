package io.rattan.node.hostile;

import static io.rattan.node.netty.Handshakes.awaitReply;
import static io.rattan.node.netty.Handshakes.expect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.MessageType;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.netty.Handshakes.RawPeer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peers that lie about the time, on real sockets (issue 39, item 7): a node just booted asks them, as a node does,
 * and they answer its pings with a clock far ahead. Neither one host under several ids nor three hosts whose time
 * lies years ahead may move the node's expiry clock: a clock pushed ahead purges live values and drops tombstones
 * early, and a first correction used to be made whole and persisted.
 */
class ClockLiarsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final long HOUR = 3_600_000L;
    private static final long YEAR = 365 * 24 * HOUR;

    @TempDir
    Path dir;

    @Test
    void threeIdsOnOneHostAnHourAheadCountOnceAndMoveNothing() throws Exception {
        // Four ids per host allowed (an operator's choice), so that the node pings all three liars at once; with the
        // default of two, two liars and one honest host make the same majority.
        NodeConfig config = NodeConfig.defaults().withIdsPerIp(4);
        assertLiarsMoveNothing(config, List.of("127.0.0.2", "127.0.0.2", "127.0.0.2"), HOUR, List.of());
    }

    @Test
    void threeHostsAYearAheadMoveNoClockThatPeersHaveNotConfirmed() throws Exception {
        assertLiarsMoveNothing(NodeConfig.defaults(), List.of("127.0.0.2", "127.0.0.3", "127.0.0.4"), YEAR,
                List.of());
    }

    /** Before, the first three hosts a node heard decided: two liars and one true host moved it an hour ahead. */
    @Test
    void twoHostsAnHourAheadAndOneTrueHostMoveNoClockThatPeersHaveNotConfirmed() throws Exception {
        assertLiarsMoveNothing(NodeConfig.defaults(), List.of("127.0.0.2", "127.0.0.3"), HOUR, List.of("127.0.0.4"));
    }

    /**
     * Boots two nodes (their clocks unsettled: neither tells the other its time for 30 s) and lets liars on
     * {@code hosts}, named to node 0 by a messenger, answer its pings with the time {@code aheadMillis} ahead (and
     * peers on {@code trueHosts} with the true time); node 0's pong must then carry no time (unsettled) or the true
     * one: moved, it settles and tells the liars' time.
     */
    private void assertLiarsMoveNothing(NodeConfig config, List<String> hosts, long aheadMillis, List<String> trueHosts)
            throws Exception {
        try (LocalCluster cluster = LocalCluster.start(2, dir, config)) {
            int port = cluster.node(0).contact().address().port();
            List<RawPeer> liars = new ArrayList<>();
            List<AtomicInteger> answered = new ArrayList<>();
            try (RawPeer messenger = new RawPeer("messenger", "127.0.0.9")) {
                for (int i = 0; i < hosts.size() + trueHosts.size(); i++) {
                    boolean lies = i < hosts.size();
                    RawPeer peer = new RawPeer("clock-liar-" + i,
                            lies ? hosts.get(i) : trueHosts.get(i - hosts.size()));
                    liars.add(peer);
                    answered.add(answerPingsAhead(peer.dialAndProve(port, true), lies ? aheadMillis : 0));
                }
                messenger.dialAndProve(port, true);
                List<Contact> named = liars.stream().map(l -> l.contact).toList();
                await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
                    // Second-hand contacts are pinged before they are used: name the liars until each was asked.
                    messenger.send(new Envelope(messenger.contact, 1, new JoinInfo(named, false)));
                    return answered.stream().allMatch(n -> n.get() > 0);
                });
                messenger.send(new Envelope(messenger.contact, 77, new Ping()));
                Envelope pong = awaitReply(messenger, MessageType.PONG, 77);
                // 0 while unsettled; a node that settled alone before the liars were heard (30 s after its start,
                // on a slow machine) tells its time, which must be the true one.
                long nodeMillis = ((Pong) pong.body()).senderMillis();
                if (nodeMillis != 0) {
                    assertThat(nodeMillis).as("node 0's expiry clock, as its pong tells it")
                            .isBetween(System.currentTimeMillis() - 10_000, System.currentTimeMillis() + 10_000);
                }
            } finally {
                for (RawPeer l : liars) {
                    l.close();
                }
            }
        }
    }

    /** Answers every ping the node sends {@code liar} with a time {@code aheadMillis} ahead; counts the answers. */
    private static AtomicInteger answerPingsAhead(RawPeer liar, long aheadMillis) {
        AtomicInteger answered = new AtomicInteger();
        Thread t = new Thread(() -> {
            try {
                liar.fromNode.setSoTimeout(0);
                while (true) {
                    Envelope ping = expect(liar.fromNode, MessageType.PING);
                    liar.send(new Envelope(liar.contact, ping.requestId(),
                            new Pong(List.of(), System.currentTimeMillis() + aheadMillis)));
                    answered.incrementAndGet();
                }
            } catch (IOException | RuntimeException closed) {
                // the liar or the node closed the connection
            }
        }, "clock-liar");
        t.setDaemon(true);
        t.start();
        return answered;
    }

}
