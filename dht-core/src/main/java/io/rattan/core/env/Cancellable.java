package io.rattan.core.env;

/** A scheduled task that may be cancelled before it runs. */
@FunctionalInterface
public interface Cancellable {

    Cancellable NONE = () -> { };

    /** Cancels the task if it has not run; harmless afterwards. */
    void cancel();
}
