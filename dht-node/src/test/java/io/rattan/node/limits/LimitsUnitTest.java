package io.rattan.node.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.google.common.base.Ticker;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The limits' logic on manual clocks: token buckets, storage shares, and what the record accepts. */
class LimitsUnitTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final Ticker ticker = new Ticker() {
        @Override
        public long read() {
            return nanos.get();
        }
    };

    @Test
    void aBucketStartsFullWithOneSecondOfBurstThenRefillsAtItsRate() {
        KeyedRateLimiter<String> limiter = new KeyedRateLimiter<>(10, ticker);
        int taken = 0;
        for (int i = 0; i < 50; i++) {
            taken += limiter.tryAcquire("a") ? 1 : 0;
        }
        assertThat(taken).isEqualTo(10);
        // Another key has its own bucket.
        assertThat(limiter.tryAcquire("b")).isTrue();
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(250));
        taken = 0;
        for (int i = 0; i < 50; i++) {
            taken += limiter.tryAcquire("a") ? 1 : 0;
        }
        assertThat(taken).isEqualTo(2);
        assertThat(limiter.retryAfterMillis()).isEqualTo(100);
        assertThat(limiter.size()).isEqualTo(2);
    }

    @Test
    void offAllowsEverythingAndTracksNothing() {
        KeyedRateLimiter<String> limiter = new KeyedRateLimiter<>(Limits.OFF, ticker);
        for (int i = 0; i < 10_000; i++) {
            assertThat(limiter.tryAcquire("k" + i)).isTrue();
        }
        assertThat(limiter.size()).isZero();
        assertThat(limiter.retryAfterMillis()).isZero();
    }

    @Test
    void keysAreBoundedWhateverAStrangerCyclesThrough() {
        KeyedRateLimiter<Integer> limiter = new KeyedRateLimiter<>(5, ticker);
        for (int i = 0; i < KeyedRateLimiter.KEYS_MAX + 5_000; i++) {
            limiter.tryAcquire(i);
        }
        assertThat(limiter.size()).isLessThanOrEqualTo(KeyedRateLimiter.KEYS_MAX);
    }

    @Test
    void aShareRefusesBeyondItsBytesUntilTheyExpireAndAFailedPutGivesItsBytesBack() throws Exception {
        AtomicLong clock = new AtomicLong(1_700_000_000_000L);
        StorageShares shares = new StorageShares(3000, Duration.ofDays(7), clock::get);
        ClientId a = ClientId.of(InetAddress.getByName("127.0.0.2"));
        ClientId b = ClientId.token("b");
        assertThat(shares.reserve(a, 1000, 60).admitted()).isTrue();
        StorageShares.Decision second = shares.reserve(a, 1000, 3600);
        assertThat(second.admitted()).isTrue();
        assertThat(shares.reserve(a, 1000, 7 * 24 * 3600).admitted()).isTrue();
        StorageShares.Decision full = shares.reserve(a, 1, 60);
        assertThat(full.admitted()).isFalse();
        // The first bytes to free are the 60-second put's, at the end of its minute bucket.
        assertThat(full.retryAfterMillis()).isBetween(60_000L, 120_000L);
        assertThat(shares.reserve(b, 3000, 60).admitted()).isTrue();
        shares.release(second.reservation());
        assertThat(shares.used(a)).isEqualTo(2000);
        assertThat(shares.reserve(a, 1000, 60).admitted()).isTrue();
        clock.addAndGet(Duration.ofHours(3).toMillis());
        assertThat(shares.used(a)).isEqualTo(1000);
        assertThat(shares.reserve(a, 2000, 60).admitted()).isTrue();
    }

    @Test
    void ratesAndSharesTurnOffWithMinusOneButBoundsAndTimeoutsCannot() {
        Limits off = Limits.defaults().withClientRequestsPerSecond(Limits.OFF).withPeerRequestsPerSecond(Limits.OFF)
                .withPeerIpRequestsPerSecond(Limits.OFF).withClientStorageBytes(Limits.OFF);
        assertThat(off.clientRequestsPerSecond()).isEqualTo(-1);
        assertThat(off.peerIpRequestsPerSecond()).isEqualTo(-1);
        assertThatIllegalArgumentException().isThrownBy(() -> Limits.defaults().withPeerIpRequestsPerSecond(0));
        assertThatIllegalArgumentException().isThrownBy(() -> Limits.defaults().withOutboundConnectionsMax(0));
        assertThatIllegalArgumentException().isThrownBy(() -> Limits.defaults().withOutboundConnectionsMax(-1));
        assertThatIllegalArgumentException().isThrownBy(() -> Limits.defaults().withClientRequestsPerSecond(0));
        assertThatIllegalArgumentException().isThrownBy(() -> Limits.defaults().withConnections(-1, 1));
        assertThatIllegalArgumentException().isThrownBy(() -> Limits.defaults().withConnections(10, 11));
        assertThatIllegalArgumentException().isThrownBy(() -> Limits.defaults().withTimeouts(-1, 1));
    }
}
