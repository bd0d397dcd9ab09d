package io.rattan.core.wan;

import java.util.random.RandomGenerator;

/**
 * The one-way delay of a message between two hosts: half their round trip, plus jitter normally distributed with
 * σ = a fraction of that half, clamped at 0. The simulator and the node's wide-area emulation both draw delays here,
 * so that a real cluster and a simulated world of the same matrix and seed see the same distribution. Stateless.
 *
 * <p>A negative draw is clamped, not redrawn (at σ = 10% that takes a 10σ draw), and each draw is independent, so two
 * messages on one path may arrive out of order: whoever needs a path's order keeps it on top of these delays.
 */
public final class OneWayDelay {

    /** σ of the jitter as a fraction of the one-way delay: what the simulator's wide-area worlds use. */
    public static final double DEFAULT_JITTER_FRACTION = 0.10;

    private OneWayDelay() {
    }

    /**
     * A one-way delay in nanoseconds for a path of round trip {@code rttMillis}. Draws one Gaussian from
     * {@code random} when {@code jitterFraction} is positive and nothing when it is 0, so a world without jitter draws
     * nothing.
     *
     * @param rttMillis      the round trip between the two hosts, in milliseconds, finite and non-negative
     * @param jitterFraction σ of the jitter as a fraction of the one-way delay, checked by {@link #checkJitter}
     */
    public static long nanos(double rttMillis, double jitterFraction, RandomGenerator random) {
        double oneWay = rttMillis * 1e6 / 2;
        if (jitterFraction > 0) {
            oneWay += random.nextGaussian() * jitterFraction * oneWay;
        }
        return Math.max(0, Math.round(oneWay));
    }

    /** Returns {@code jitterFraction} if it is finite and non-negative; else throws IllegalArgumentException. */
    public static double checkJitter(double jitterFraction) {
        if (!(jitterFraction >= 0) || !Double.isFinite(jitterFraction)) {
            throw new IllegalArgumentException("jitterFraction must be finite and >= 0, got " + jitterFraction);
        }
        return jitterFraction;
    }
}
