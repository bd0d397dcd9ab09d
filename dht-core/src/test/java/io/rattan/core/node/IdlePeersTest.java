package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A node forgets the peers that are no neighbours once they have been quiet for {@link Peers#IDLE_NANOS}: without
 * that, every gateway, replica and lookup hop a node ever heard from stays in its memory (in a simulated hour of
 * 10,000 nodes and a million gets, ~1,000 peers a node).
 */
class IdlePeersTest {

    private static final long SECOND = 1_000_000_000L;
    /** A sweep passes over the whole map about once a minute; an entry shifted back waits for the next pass. */
    private static final long SWEEP_LAG = 2 * 65 * SECOND;

    private static Peers peers() {
        return new Peers(1_000 * 1_000_000L, 50 * 1_000_000L, 10 * SECOND, 20 * SECOND);
    }

    @Test
    void quietPeersThatAreNoNeighboursAreForgottenAndTheRestKept() {
        Peers peers = peers();
        SplittableRandom random = new SplittableRandom(1);
        List<Id> quiet = new ArrayList<>();
        List<Id> neighbours = new ArrayList<>();
        List<Id> probing = new ArrayList<>();
        List<Id> recent = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            Id id = Id.random(random);
            peers.heardFrom(id, 0);
            switch (i % 4) {
                case 0 -> quiet.add(id);
                case 1 -> neighbours.add(id);
                case 2 -> {
                    probing.add(id);
                    peers.suspect(id, true);
                }
                default -> recent.add(id);
            }
        }
        long now = Peers.IDLE_NANOS + SECOND;
        for (Id id : recent) {
            peers.heardFrom(id, now - SECOND);
        }
        // A peer we measured but never heard from (a probe's entry): it is quiet too.
        Id neverHeard = Id.random(random);
        peers.sample(neverHeard, 5_000_000L, 0);
        quiet.add(neverHeard);

        for (int tick = 0; tick < 130; tick++) {
            peers.forgetIdle(now + tick * SECOND, neighbours::contains);
        }

        assertThat(quiet).noneMatch(peers::knows);
        assertThat(neighbours).allMatch(peers::knows);
        assertThat(probing).allMatch(peers::knows);
        assertThat(recent).allMatch(peers::knows);
        assertThat(peers.size()).isEqualTo(300);
    }

    @Test
    void nothingIsForgottenBeforeItHasBeenQuietForTheWholeWindow() {
        Peers peers = peers();
        Id id = Id.random(new SplittableRandom(2));
        peers.heardFrom(id, 10 * SECOND);
        for (long t = 10 * SECOND; t <= 10 * SECOND + Peers.IDLE_NANOS; t += SECOND) {
            peers.forgetIdle(t, other -> false);
        }
        assertThat(peers.knows(id)).isTrue();
    }

    @Test
    void aGatewayForgetsTheLookupHopsItNoLongerHearsFromInAVirtualWorld() {
        VirtualWorld world = new VirtualWorld(23, NodeConfig.defaults(), LatencyModel.constant(10_000_000L));
        assertThat(world.addNodesInWaves(400, 64)).isZero();
        int gateway = 0;
        Node node = world.node(gateway);
        Address gatewayAddress = world.contact(gateway).address();
        Map<Address, Long> lastSentToGateway = new HashMap<>();
        world.network().observer((from, to, e) -> {
            if (to.equals(gatewayAddress)) {
                lastSentToGateway.put(from, world.scheduler().nanoTime());
            }
        });

        // Iterative gets: the gateway itself asks the nodes of each path, most of them no neighbours of its own.
        for (int i = 0; i < 60; i++) {
            Message reply = world.request(gateway, new ClientGet(Id.ofName("idle-key-" + i), 0, Bytes.EMPTY, false, GetOptions.of(RoutingMode.ITERATIVE).withParallelism(3)));
            assertThat(reply).isInstanceOf(GetReply.class);
        }
        List<Id> rememberedStrangers = new ArrayList<>();
        for (int i = 1; i < world.size(); i++) {
            Id id = world.contact(i).id();
            if (node.knowsPeer(id) && !node.isNeighbour(id)) {
                rememberedStrangers.add(id);
            }
        }
        assertThat(rememberedStrangers).as("non-neighbours the gets made the gateway remember").hasSizeGreaterThan(30);

        world.runFor(Peers.IDLE_NANOS + SWEEP_LAG);

        long now = world.scheduler().nanoTime();
        int quietStrangers = 0;
        int forgottenOfTheRemembered = 0;
        for (int i = 1; i < world.size(); i++) {
            Id id = world.contact(i).id();
            Long last = lastSentToGateway.get(world.contact(i).address());
            boolean quiet = last == null || last < now - Peers.IDLE_NANOS - SWEEP_LAG;
            if (quiet && !node.isNeighbour(id)) {
                quietStrangers++;
                assertThat(node.knowsPeer(id)).as("quiet non-neighbour %s still known", id.shortHex()).isFalse();
            }
            if (rememberedStrangers.contains(id) && !node.knowsPeer(id)) {
                forgottenOfTheRemembered++;
            }
        }
        // Most of the nodes the gets met keep talking to the gateway (it is in their tables, which they ping): those
        // are remembered, rightly. The quiet ones must all be gone.
        assertThat(quietStrangers).isGreaterThan(20);
        assertThat(forgottenOfTheRemembered).isGreaterThan(20);
    }
}
