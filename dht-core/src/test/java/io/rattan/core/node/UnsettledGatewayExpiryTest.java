package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A gateway sets a put's expiry by its expiry clock, once. Until that clock has settled since boot it stamps nothing
 * while it may be off: before any leaf-set member has answered it, while a peer says it is off, and while it booted
 * behind its persisted mark; it holds the put until it may, for up to half the request timeout, then answers
 * UNAVAILABLE ({@code Clock#mayStamp}, {@link ClockWait}). The fault simulator found values
 * put through a gateway restarted with its wall clock set back, acknowledged and expired everywhere 11–13 s early
 * (seeds 52 and 400 of {@code --liars 0.1 --attacks secret-harvest}). Where no peer can tell it (a starting cluster,
 * whose clocks tell no time), the root keeps a stamp within its own clock + TTL + 2 S and sets one beyond that aside.
 * Virtual time, one seed.
 */
class UnsettledGatewayExpiryTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long HOUR_MILLIS = 3_600_000L;
    private static final int TTL_SECONDS = 60;
    private static final int GATEWAY = 3;

    private final NodeConfig config = NodeConfig.defaults().withLeafSetHalf(4).withReplicas(4, 2);

    /** Twelve nodes, started together; the world has run {@code seconds}. */
    private VirtualWorld cluster(long seconds) {
        VirtualWorld world = new VirtualWorld(5, config, LatencyModel.constant(5_000_000L));
        world.enableFaults(1, PlantedBugs.NONE);
        world.addNodes(12);
        world.runFor(seconds * SECOND);
        return world;
    }

    /** Restarts the gateway with its wall clock {@code offsetMillis} off, after {@code downSeconds}, on {@code disk}. */
    private static void restartOff(VirtualWorld world, long offsetMillis, int downSeconds, VirtualWorld.Disk disk) {
        world.crash(GATEWAY, disk);
        world.runFor(downSeconds * SECOND);
        world.clockOffsetMillis(GATEWAY, offsetMillis);
        world.restart(GATEWAY);
        assertThat(world.runUntil(() -> world.node(GATEWAY).isJoined(), 30 * SECOND)).isTrue();
    }

    @Test
    void aGatewayRestartedBehindItsMarkTakesNoPutUntilPeersConfirmItsClock() {
        VirtualWorld world = cluster(40);
        restartOff(world, -HOUR_MILLIS, 10, VirtualWorld.Disk.KEPT);
        assertThat(world.expiryClockErrorMillis(GATEWAY)).as("runs from its mark, behind by its downtime")
                .isLessThan(-5_000);

        assertHeldThenStampedRight(world);
    }

    @Test
    void aGatewayRestartedOnALostDiskWithItsClockBehindTakesNoPutBeforeAPeerAnswered() {
        VirtualWorld world = cluster(40);
        restartOff(world, -13_000, 5, VirtualWorld.Disk.LOST);
        assertThat(world.expiryClockErrorMillis(GATEWAY)).as("no mark: its wall clock").isLessThan(-10_000);

        assertHeldThenStampedRight(world);
    }

    @Test
    void aGatewayThatBootedAnHourAheadIntoARunningClusterTakesNoPutUntilPeersSetItRight() {
        VirtualWorld world = cluster(40);
        restartOff(world, HOUR_MILLIS, 1, VirtualWorld.Disk.KEPT);
        assertThat(world.expiryClockErrorMillis(GATEWAY)).isGreaterThan(HOUR_MILLIS / 2);

        assertHeldThenStampedRight(world);
    }

    /**
     * A root restarted behind its mark (by its time down) took the right stamp of a settled gateway for a late
     * one, set it aside and set its own clock + TTL: the value expired 1.5 s early everywhere (honest CI seed 128). A
     * root whose clock may not stamp keeps the gateway's stamp.
     */
    @Test
    void aRootRestartedBehindItsMarkKeepsTheStampOfAGatewayWhoseClockIsRight() {
        VirtualWorld world = cluster(40);
        int root = 5;
        world.crash(root, VirtualWorld.Disk.KEPT);
        world.runFor(1_300_000_000L);
        world.clockOffsetMillis(root, -HOUR_MILLIS);
        world.restart(root);
        assertThat(world.runUntil(() -> world.node(root).isJoined(), 30 * SECOND)).isTrue();
        // Behind by more than the 2 S a root allows a gateway ahead of it, and less than the 4 S a gateway allows
        // its replicas' acks behind its stamp: the acks of the early copies count.
        assertThat(world.expiryClockErrorMillis(root)).as("runs from its mark")
                .isBetween(-4 * ExpiryClock.SKEW_BOUND_MILLIS, -2 * ExpiryClock.SKEW_BOUND_MILLIS);
        Id key = world.contact(root).id();
        Bytes value = Bytes.utf8("put through a settled gateway to a root restarted behind its mark");
        long tookAt = world.scheduler().epochMillis();

        System.out.println("DBG before " + world.expiryClockErrorMillis(root) + " at " + world.scheduler().nanoTime() / 1e9);
        Message reply = world.request(GATEWAY, new ClientPut(key, value, TTL_SECONDS, Bytes.EMPTY));
        System.out.println("DBG after at " + world.scheduler().nanoTime() / 1e9);

        assertThat(reply).isInstanceOfSatisfying(PutReply.class, p -> assertThat(p.status()).isEqualTo(Status.OK));
        System.out.println("DBG err " + world.expiryClockErrorMillis(root) + " exp " + (world.store(root).read(key, value.sha256()).get().expiresAtMillis() - tookAt));
        assertThat(world.store(root).read(key, value.sha256())).as("the root holds it").isPresent();
        assertCopiesExpireRight(world, new Acceptance(key, value, tookAt, world.scheduler().epochMillis(), 0, 0));
    }

    /**
     * A clock its peers say is three hours off is more than a first correction may move: it stays in doubt (its
     * machine's clock needs setting), and each put is held half the request timeout, then answered UNAVAILABLE; one
     * held when the node stops is answered at once.
     */
    @Test
    void aGatewayWhoseClockIsTooFarOffToCorrectAnswersEachPutUnavailableAfterHalfTheRequestTimeout() {
        VirtualWorld world = cluster(40);
        restartOff(world, 3 * HOUR_MILLIS, 1, VirtualWorld.Disk.KEPT);
        world.runFor(10 * SECOND);
        ClientPut put = new ClientPut(Id.ofName("held"), Bytes.utf8("held"), TTL_SECONDS, Bytes.EMPTY);
        long sent = world.scheduler().nanoTime();

        Message reply = world.request(GATEWAY, put);

        assertThat(reply).isInstanceOfSatisfying(ErrorReply.class, e -> {
            assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
            assertThat(e.detail()).contains("expiry clock");
        });
        long half = config.requestTimeoutMillis() * 500_000L;
        assertThat(world.scheduler().nanoTime() - sent).isBetween(half, half + SECOND / 10);
        assertThat(world.node(GATEWAY).isReady()).isFalse();

        Message[] atStop = new Message[1];
        world.scheduler().execute(() -> world.node(GATEWAY).handleClient(put, m -> atStop[0] = m));
        world.runFor(SECOND / 10);
        assertThat(atStop[0]).as("held").isNull();
        world.kill(GATEWAY);
        assertThat(atStop[0]).isEqualTo(new ErrorReply(Status.UNAVAILABLE, "node is stopping"));
    }

    /**
     * In a starting cluster no peer tells a time, so a gateway that booted an hour ahead is not known to be off and
     * stamps an hour late: the root sets the stamp aside and sets its own clock + TTL (capped at 2 S, the value lived
     * up to 2 S past its expiry, and the fault simulator saw one served 0.7 s past expiry + S).
     */
    @Test
    void inAStartingClusterTheRootSetsAsideTheStampOfAGatewayAnHourAhead() {
        VirtualWorld world = cluster(3);
        restartOff(world, HOUR_MILLIS, 1, VirtualWorld.Disk.KEPT);

        Acceptance put = putUntilTaken(world);

        assertThat(put.refusals).as("its peers tell no time yet: nothing says it is off").isZero();
        assertThat(put.errorAtOkMillis).as("stamped an hour ahead").isGreaterThan(HOUR_MILLIS / 2);
        assertCopiesExpireRight(world, put);
    }

    private void assertHeldThenStampedRight(VirtualWorld world) {
        Acceptance put = putUntilTaken(world);

        assertCopiesExpireRight(world, put);
        assertThat(Math.abs(put.errorAtOkMillis)).as("held until its peers had set its clock right")
                .isLessThanOrEqualTo(ExpiryClock.SKEW_BOUND_MILLIS);
    }

    private void assertCopiesExpireRight(VirtualWorld world, Acceptance put) {
        int copies = 0;
        for (int i = 0; i < world.size(); i++) {
            Optional<StoredRecord> r = world.store(i).read(put.key, put.value.sha256());
            if (r.isPresent()) {
                copies++;
                assertThat(r.get().expiresAtMillis()).as("expiry of node %d's copy", i)
                        .isBetween(put.tookAtMillis + TTL_SECONDS * 1000L - ExpiryClock.SKEW_BOUND_MILLIS,
                                put.okAtMillis + TTL_SECONDS * 1000L + ExpiryClock.SKEW_BOUND_MILLIS);
            }
        }
        assertThat(copies).isGreaterThanOrEqualTo(config.writeQuorum());
    }

    /**
     * Puts through the gateway, once a second while it answers UNAVAILABLE (it holds a put for half the request
     * timeout), until it takes one.
     */
    private static Acceptance putUntilTaken(VirtualWorld world) {
        // Half the ring from the gateway: it is no replica, so a settled root sets the expiry.
        Id key = world.contact(GATEWAY).id().plus(new Id(Long.MIN_VALUE, 0, 0));
        Bytes value = Bytes.utf8("put through a gateway restarted with its clock off");
        for (int refusals = 0; refusals < 60; refusals++) {
            long tookAt = world.scheduler().epochMillis();
            Message reply = world.request(GATEWAY, new ClientPut(key, value, TTL_SECONDS, Bytes.EMPTY));
            if (reply instanceof PutReply p) {
                assertThat(p.status()).isEqualTo(Status.OK);
                return new Acceptance(key, value, tookAt, world.scheduler().epochMillis(), refusals,
                        world.expiryClockErrorMillis(GATEWAY));
            }
            assertThat(((ErrorReply) reply).status()).as("%s", reply).isEqualTo(Status.UNAVAILABLE);
            world.runFor(SECOND);
        }
        throw new AssertionError("the gateway refused puts for a minute");
    }

    private record Acceptance(Id key, Bytes value, long tookAtMillis, long okAtMillis, int refusals,
                              long errorAtOkMillis) {
    }
}
