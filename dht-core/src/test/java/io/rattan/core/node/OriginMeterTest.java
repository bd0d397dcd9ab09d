package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A root takes a put only with its origin's signature over what it carries, and counts it against that origin's rate
 * and share ({@link OriginMeter}, {@link PutRequest#originProven}).
 */
class OriginMeterTest {

    private static final long SECOND = 1_000_000_000L;
    private static final NodeKey GATEWAY_KEY = NodeKey.draw(new SplittableRandom(5));
    private static final Contact GATEWAY = new Contact(GATEWAY_KEY.id(), new Address("10.0.0.1", 4000));
    private static final NodeKey OTHER_KEY = NodeKey.draw(new SplittableRandom(6));
    private static final Contact ROOT = new Contact(Id.ofName("root"), new Address("10.0.0.2", 4000));

    private final VirtualScheduler scheduler = new VirtualScheduler(1_700_000_000_000L);

    private NodeContext root(OriginLimits limits) {
        NodeConfig config = NodeConfig.defaults().toBuilder().origin(limits).build();
        return HandBuiltNode.of(ROOT, config, scheduler, new NodeListener() { }, (to, e) -> { }).ctx();
    }

    private PutRequest put(String value, int ttlSeconds) {
        return new PutRequest(Id.ofName("key"), Bytes.utf8(value), ttlSeconds,
                scheduler.epochMillis() + ttlSeconds * 1000L, Bytes.utf8("b").sha256(), GATEWAY, 9, 2);
    }

    private static PutRequest signed(PutRequest p) {
        return p.signedBy(GATEWAY_KEY, "default");
    }

    private static Status statusOf(ErrorReply refusal) {
        return refusal == null ? Status.OK : refusal.status();
    }

    @Test
    void aPutSignedByItsOriginIsTakenAndAnyChangeToItOrAnotherSignerIsRefused() {
        NodeContext ctx = root(OriginLimits.DEFAULTS);
        OriginMeter meter = new OriginMeter(ctx.config().origin(), scheduler);
        PutRequest p = signed(put("v", 60));

        assertThat(statusOf(meter.check(ctx, p, false))).isEqualTo(Status.OK);
        assertThat(statusOf(meter.check(ctx, p.nextHop().withTtlSeconds(30), false))).as("hops and a second try's TTL")
                .isEqualTo(Status.OK);
        PutRequest[] changed = {
            new PutRequest(p.key(), Bytes.utf8("w"), 60, p.expiresAtMillis(), p.binding(), GATEWAY, 9, 2, null,
                    PutCondition.NONE, p.originProof()),
            new PutRequest(p.key(), p.value(), 60, p.expiresAtMillis() + 1, p.binding(), GATEWAY, 9, 2, null,
                    PutCondition.NONE, p.originProof()),
            new PutRequest(p.key(), p.value(), 60, p.expiresAtMillis(), Bytes.EMPTY, GATEWAY, 9, 2, null,
                    PutCondition.NONE, p.originProof()),
            new PutRequest(Id.ofName("other"), p.value(), 60, p.expiresAtMillis(), p.binding(), GATEWAY, 9, 2, null,
                    PutCondition.NONE, p.originProof()),
            new PutRequest(p.key(), p.value(), 60, p.expiresAtMillis(), p.binding(), GATEWAY, 9, 2, null,
                    PutCondition.ABSENT, p.originProof()),
            put("v", 60),
            put("v", 60).signedBy(OTHER_KEY, "default"),
            put("v", 60).withOriginProof(new IdProof(OTHER_KEY.publicKey(), p.originProof().signature())),
            put("v", 60).signedBy(GATEWAY_KEY, "ns"),
        };
        for (PutRequest c : changed) {
            assertThat(statusOf(meter.check(ctx, c, false))).as(c.toString()).isEqualTo(Status.FORBIDDEN);
        }
        assertThat(statusOf(meter.check(ctx, put("v", 60), true)))
                .as("unsigned, straight from its origin, whose connection proved its id").isEqualTo(Status.OK);
        NodeContext upgrading = root(new OriginLimits(false, OriginLimits.OFF, OriginLimits.OFF));
        OriginMeter during = new OriginMeter(upgrading.config().origin(), scheduler);
        assertThat(statusOf(during.check(upgrading, put("v", 60), false))).as("while nodes of 16 sign nothing")
                .isEqualTo(Status.OK);
    }

    @Test
    void anOriginGetsItsRateAtThisRootAndMoreASecondLater() {
        NodeContext ctx = root(new OriginLimits(true, 2, OriginLimits.OFF));
        OriginMeter meter = new OriginMeter(ctx.config().origin(), scheduler);

        assertThat(statusOf(meter.check(ctx, signed(put("a", 60)), false))).isEqualTo(Status.OK);
        assertThat(statusOf(meter.check(ctx, signed(put("b", 60)), false))).isEqualTo(Status.OK);
        assertThat(statusOf(meter.check(ctx, signed(put("c", 60)), false))).isEqualTo(Status.RATE_LIMITED);
        scheduler.runFor(SECOND);
        assertThat(statusOf(meter.check(ctx, signed(put("c", 60)), false))).isEqualTo(Status.OK);
    }

    @Test
    void anOriginHoldsItsShareUntilItsValuesExpire() {
        NodeContext ctx = root(new OriginLimits(true, OriginLimits.OFF, 10));
        OriginMeter meter = new OriginMeter(ctx.config().origin(), scheduler);

        assertThat(statusOf(meter.check(ctx, signed(put("aaaa", 60)), false))).isEqualTo(Status.OK);
        assertThat(statusOf(meter.check(ctx, signed(put("bbbb", 60)), false))).isEqualTo(Status.OK);
        ErrorReply full = meter.check(ctx, signed(put("cccc", 60)), false);
        assertThat(statusOf(full)).isEqualTo(Status.QUOTA_EXCEEDED);
        assertThat(full.retryAfterMillis()).isPositive();
        assertThat(meter.bytesOf(GATEWAY.id())).isEqualTo(8);
        scheduler.runFor(121 * SECOND);
        assertThat(meter.bytesOf(GATEWAY.id())).isZero();
        assertThat(statusOf(meter.check(ctx, signed(put("cccc", 60)), false))).isEqualTo(Status.OK);
    }

    @Test
    void aSecondTryOfAPutTakesAnotherTokenButAddsNoBytes() {
        NodeContext ctx = root(new OriginLimits(true, 3, 10));
        OriginMeter meter = new OriginMeter(ctx.config().origin(), scheduler);
        PutRequest first = signed(put("aaaa", 60));

        assertThat(statusOf(meter.check(ctx, first, false))).isEqualTo(Status.OK);
        assertThat(statusOf(meter.check(ctx, first.nextHop().withTtlSeconds(59), false))).as("its second try")
                .isEqualTo(Status.OK);
        assertThat(meter.bytesOf(GATEWAY.id())).isEqualTo(4);
        PutRequest sameRequestOtherBytes = signed(put("bbbb", 60));
        assertThat(statusOf(meter.check(ctx, sameRequestOtherBytes, false))).isEqualTo(Status.OK);
        assertThat(meter.bytesOf(GATEWAY.id())).as("another value under the same request id counts").isEqualTo(8);
        assertThat(statusOf(meter.check(ctx, first, false))).as("tokens: three a second, all taken")
                .isEqualTo(Status.RATE_LIMITED);
    }

    @Test
    void thisNodesOwnPutsCountAgainstNothingHereButMustBeSignedByIt() {
        NodeKey rootKey = NodeKey.draw(new SplittableRandom(7));
        Contact self = new Contact(rootKey.id(), new Address("10.0.0.3", 4000));
        NodeContext ctx = HandBuiltNode.of(self, NodeConfig.defaults().toBuilder()
                .origin(new OriginLimits(true, 1, 1)).build(), scheduler, new NodeListener() { }, (to, e) -> { }).ctx();
        OriginMeter meter = new OriginMeter(ctx.config().origin(), scheduler);
        PutRequest own = new PutRequest(Id.ofName("key"), Bytes.utf8("value"), 60, scheduler.epochMillis() + 60_000,
                Bytes.EMPTY, self, 1, 0);

        for (int i = 0; i < 3; i++) {
            assertThat(statusOf(meter.check(ctx, own.signedBy(rootKey, "default"), false))).isEqualTo(Status.OK);
        }
        assertThat(statusOf(meter.check(ctx, own, false))).as("unsigned, naming this node, from elsewhere")
                .isEqualTo(Status.FORBIDDEN);
    }
}
