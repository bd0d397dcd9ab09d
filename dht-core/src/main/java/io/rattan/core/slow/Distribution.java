package io.rattan.core.slow;

import java.util.random.RandomGenerator;

/**
 * What a slow period does to each message its node handles: an extra service delay drawn from a {@link Pareto} or a
 * {@link Fixed} value, or a chance to {@link Drop} the message. One period has one effect; a node that is both slow
 * and lossy has two overlapping periods, and overlapping effects compose (delays add, drop chances combine as
 * independent events). Parameters are in milliseconds because traces and reports are read by people; samples are
 * in nanoseconds because the virtual clock is.
 */
public sealed interface Distribution {

    /** One extra service delay in nanoseconds; {@link Drop} adds none. */
    long sampleNanos(RandomGenerator random);

    /** Whether this effect delays messages (rather than dropping them). */
    boolean delays();

    /** The chance that a message is dropped; 0 for the delay effects. */
    double dropProbability();

    /**
     * A Pareto (type I) delay with scale {@code minMillis} and tail index {@code shape}, capped at {@code capMillis}.
     * Its median is {@code minMillis * 2^(1/shape)}; for shape ≤ 1 its mean is infinite, hence the cap.
     */
    record Pareto(double minMillis, double shape, double capMillis) implements Distribution {

        public Pareto {
            if (!(minMillis > 0) || !Double.isFinite(minMillis)) {
                throw new IllegalArgumentException("pareto min_ms must be finite and > 0, got " + minMillis);
            }
            if (!(shape > 0) || !Double.isFinite(shape)) {
                throw new IllegalArgumentException("pareto shape must be finite and > 0, got " + shape);
            }
            if (!(capMillis >= minMillis) || !Double.isFinite(capMillis)) {
                throw new IllegalArgumentException("pareto cap_ms must be finite and >= min_ms, got " + capMillis);
            }
        }

        /** Reads {@code MIN_MS:SHAPE:CAP_MS}, e.g. {@code 40:1.5:5000}; a bad text fails with the reason. */
        public static Pareto parse(String text) {
            String[] parts = text.split(":");
            if (parts.length != 3) {
                throw new IllegalArgumentException("expected MIN_MS:SHAPE:CAP_MS, got '" + text + "'");
            }
            return new Pareto(Double.parseDouble(parts[0]), Double.parseDouble(parts[1]),
                    Double.parseDouble(parts[2]));
        }

        @Override
        public long sampleNanos(RandomGenerator random) {
            // Inverse CDF with u in (0, 1]: u = 0 would give an infinite delay before the cap.
            double u = 1.0 - random.nextDouble();
            double millis = Math.min(capMillis, minMillis / Math.pow(u, 1.0 / shape));
            return Math.round(millis * 1e6);
        }

        @Override
        public boolean delays() {
            return true;
        }

        @Override
        public double dropProbability() {
            return 0;
        }
    }

    /** The same extra delay for every message. */
    record Fixed(double millis) implements Distribution {

        public Fixed {
            if (!(millis >= 0) || !Double.isFinite(millis)) {
                throw new IllegalArgumentException("fixed ms must be finite and >= 0, got " + millis);
            }
        }

        @Override
        public long sampleNanos(RandomGenerator random) {
            return Math.round(millis * 1e6);
        }

        @Override
        public boolean delays() {
            return true;
        }

        @Override
        public double dropProbability() {
            return 0;
        }
    }

    /** Each message is lost with {@code probability}, independently. */
    record Drop(double probability) implements Distribution {

        public Drop {
            if (!(probability >= 0 && probability <= 1)) {
                throw new IllegalArgumentException("drop probability must be in [0, 1], got " + probability);
            }
        }

        @Override
        public long sampleNanos(RandomGenerator random) {
            return 0;
        }

        @Override
        public boolean delays() {
            return false;
        }

        @Override
        public double dropProbability() {
            return probability;
        }
    }
}
