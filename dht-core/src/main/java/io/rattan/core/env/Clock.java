package io.rattan.core.env;

/** Time as node logic sees it. The real node reads the system clocks; the virtual world a counter. */
public interface Clock {

    /** Monotonic time for measuring intervals. */
    long nanoTime();

    /** Wall-clock time, used only for value expiry, which must survive restarts. */
    long epochMillis();
}
