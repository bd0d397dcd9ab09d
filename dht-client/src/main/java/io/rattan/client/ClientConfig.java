package io.rattan.client;

import io.micrometer.core.instrument.MeterRegistry;
import io.rattan.api.Address;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;

/**
 * A client's settings, validated here so that a built client never holds a nonsensical value.
 *
 * @param gateways            where requests go, at least one, no duplicates
 * @param attemptTimeout      how long one attempt (connect, send, answer) may take before the next gateway is tried
 * @param totalTimeout        how long a whole call, all attempts and backoffs included, may take
 * @param maxRetries          attempts after the first; 0 disables retries
 * @param backoffBase         upper bound of the first retry's random delay
 * @param backoffMax          cap of the random delay's upper bound
 * @param connectTimeout      how long opening a TCP connection may take
 * @param eventLoopThreads    Netty event-loop threads
 * @param requestsInFlightMax calls (in flight or waiting to retry) admitted at once; more fail fast
 * @param meterRegistry       where timers go, or null for none
 * @param executor            where returned futures complete, or null for the client's own pool
 * @param loadRing            whether the ring is loaded at start and refreshed, for one-hop gets
 * @param protocolVersion     the protocol version the client speaks (MessageCodec.VERSION, or an older one it speaks)
 * @param tls                 TLS to every gateway, or null for none
 */
record ClientConfig(
        List<Address> gateways,
        Duration attemptTimeout,
        Duration totalTimeout,
        int maxRetries,
        Duration backoffBase,
        Duration backoffMax,
        Duration connectTimeout,
        int eventLoopThreads,
        int requestsInFlightMax,
        MeterRegistry meterRegistry,
        Executor executor,
        boolean loadRing,
        int protocolVersion,
        SSLContext tls) {

    /** Longest duration accepted: beyond it, nanosecond arithmetic on deadlines could overflow. */
    static final Duration DURATION_MAX = Duration.ofDays(365);

    ClientConfig {
        gateways = List.copyOf(gateways);
        if (gateways.isEmpty()) {
            throw new IllegalStateException("no gateway configured: call gateway(\"host:port\") or gateways(...)");
        }
        if (gateways.stream().distinct().count() != gateways.size()) {
            throw new IllegalArgumentException("duplicate gateway in " + gateways);
        }
        requirePositive(attemptTimeout, "attemptTimeout");
        requirePositive(totalTimeout, "totalTimeout");
        requirePositive(backoffBase, "backoff base");
        requirePositive(backoffMax, "backoff max");
        requirePositive(connectTimeout, "connectTimeout");
        requireOrdered(backoffBase, backoffMax);
        requireWholeMillis(connectTimeout);
        requireAtLeast(maxRetries, 0, "maxRetries");
        requireAtLeast(eventLoopThreads, 1, "eventLoopThreads");
        requireAtLeast(requestsInFlightMax, 1, "maxRequestsInFlight");
    }

    /** Rejects null, zero, negative and absurdly long durations with a message naming the setting. */
    static Duration requirePositive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + d);
        }
        if (d.compareTo(DURATION_MAX) > 0) {
            throw new IllegalArgumentException(name + " must be at most " + DURATION_MAX + ", got " + d);
        }
        return d;
    }

    /** Rejects a backoff whose base exceeds its cap. */
    static void requireOrdered(Duration backoffBase, Duration backoffMax) {
        if (backoffBase.compareTo(backoffMax) > 0) {
            throw new IllegalArgumentException("backoff base " + backoffBase + " exceeds backoff max " + backoffMax);
        }
    }

    /** Rejects a connect timeout Netty cannot take: it wants whole milliseconds, 1 to {@code Integer.MAX_VALUE}. */
    static Duration requireWholeMillis(Duration connectTimeout) {
        if (connectTimeout.toMillis() < 1 || connectTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("connectTimeout must be 1 ms .. " + Integer.MAX_VALUE + " ms, got "
                    + connectTimeout);
        }
        return connectTimeout;
    }

    /** Rejects a count below {@code min} with a message naming the setting. */
    static int requireAtLeast(int value, int min, String name) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + ", got " + value);
        }
        return value;
    }
}
