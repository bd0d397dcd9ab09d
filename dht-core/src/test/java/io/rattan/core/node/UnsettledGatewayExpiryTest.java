package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A gateway sets a put's expiry by its expiry clock, once; the root keeps it within its own clock + TTL + 2 S. A stamp
 * beyond that, from a gateway whose clock booted an hour ahead and is not yet set right by its peers
 * ({@link ExpiryClock#settled}), is set aside, and the root sets its own clock + TTL: capped at 2 S, the value lived
 * up to 2 S past its expiry, and the fault simulator saw one served 0.7 s past expiry + S with every replica's clock
 * right. Virtual time, one seed.
 */
class UnsettledGatewayExpiryTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long HOUR_MILLIS = 3_600_000L;
    private static final int TTL_SECONDS = 60;

    @Test
    void theStampOfAGatewayWhoseClockBootedAnHourAheadIsSetAsideByTheRoot() {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(4).withReplicas(4, 2);
        VirtualWorld world = new VirtualWorld(5, config, LatencyModel.constant(5_000_000L));
        world.enableFaults(1, PlantedBugs.NONE);
        world.addNodes(12);
        world.runFor(30 * SECOND);
        int gateway = 3;
        world.crash(gateway, VirtualWorld.Disk.KEPT);
        world.clockOffsetMillis(gateway, HOUR_MILLIS);
        world.restart(gateway);
        assertThat(world.runUntil(() -> world.node(gateway).isJoined(), 30 * SECOND)).isTrue();
        assertThat(world.expiryClockErrorMillis(gateway)).as("booted an hour ahead, not yet set right by its peers")
                .isGreaterThan(HOUR_MILLIS / 2);
        // Half the ring from the gateway: it is no replica, so a settled root sets the expiry.
        Id key = world.contact(gateway).id().plus(new Id(Long.MIN_VALUE, 0, 0));
        Bytes value = Bytes.utf8("put through a gateway an hour ahead");
        long tookAt = world.scheduler().epochMillis();

        PutReply put = (PutReply) world.request(gateway, new ClientPut(key, value, TTL_SECONDS, Bytes.EMPTY));

        assertThat(put.status()).isEqualTo(Status.OK);
        int copies = 0;
        for (int i = 0; i < world.size(); i++) {
            Optional<StoredRecord> r = world.store(i).read(key, value.sha256());
            if (r.isPresent()) {
                copies++;
                assertThat(r.get().expiresAtMillis()).as("expiry of node %d's copy", i)
                        .isBetween(tookAt + TTL_SECONDS * 1000L, tookAt + TTL_SECONDS * 1000L
                                + ExpiryClock.SKEW_BOUND_MILLIS);
            }
        }
        assertThat(copies).isGreaterThanOrEqualTo(config.writeQuorum());
    }
}
