package io.rattan.node.cli;

import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads a load's lines and puts them, at most {@code concurrency} at a time: the reader waits for a free slot, so
 * neither the gateway nor this process's memory sees more than that, however long the file. Each put already
 * retries on the client's side; what fails after that is tallied with its line.
 */
final class LoadRunner {

    private final RattanClient client;
    private final LoadLines parser;
    private final LoadTally tally;
    private final int concurrency;
    private final boolean stopOnError;
    private final Semaphore slots;
    private final AtomicBoolean failedOnce = new AtomicBoolean();

    LoadRunner(RattanClient client, LoadLines parser, LoadTally tally, int concurrency, boolean stopOnError) {
        this.client = client;
        this.parser = parser;
        this.tally = tally;
        this.concurrency = concurrency;
        this.stopOnError = stopOnError;
        this.slots = new Semaphore(concurrency);
    }

    /**
     * Loads every line of {@code input} and waits for the last put; returns why it stopped early (with
     * {@code --stop-on-error}, or interrupted), or null when it read the whole input.
     */
    String run(LoadInput input) throws IOException {
        String note = null;
        try {
            LoadInput.Line line;
            while ((line = input.next()) != null) {
                if (stopOnError && failedOnce.get()) {
                    note = "stopped after line " + (line.number() - 1) + " at the first failure (--stop-on-error)";
                    break;
                }
                if (!line.blank()) {
                    submit(line);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            note = "interrupted: the lines after the last one read were not loaded";
        }
        slots.acquireUninterruptibly(concurrency);
        slots.release(concurrency);
        return note;
    }

    private void submit(LoadInput.Line line) throws InterruptedException {
        if (line.overlong()) {
            tally.read();
            fail(new LoadTally.Failure(line.number(), null, "line too long", "more than "
                    + LoadInput.LINE_BYTES_MAX + " bytes"), null);
            return;
        }
        LoadLines.Entry entry;
        try {
            entry = parser.parse(line.number(), line.raw());
        } catch (LoadLines.Malformed m) {
            tally.read();
            fail(new LoadTally.Failure(line.number(), null, m.reason(), m.getMessage()), line.raw());
            return;
        }
        slots.acquire();
        // Counted once it has a slot, so that read - stored - failed is what is in flight.
        tally.read();
        CompletableFuture<?> put;
        try {
            put = client.put(entry.key(), entry.value(), Duration.ofSeconds(entry.ttlSeconds()), entry.secret());
        } catch (RuntimeException e) {
            put = CompletableFuture.failedFuture(e);
        }
        put.whenComplete((result, failure) -> {
            try {
                if (failure == null) {
                    tally.stored(entry.value().length);
                } else {
                    failed(entry, failure);
                }
            } finally {
                slots.release();
            }
        });
    }

    private void failed(LoadLines.Entry entry, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        String reason = cause instanceof RattanException re ? re.status().name() : "client error";
        fail(new LoadTally.Failure(entry.number(), entry.keyText(), reason, String.valueOf(cause.getMessage())),
                entry.raw());
    }

    private void fail(LoadTally.Failure failure, byte[] raw) {
        tally.failed(failure, raw);
        failedOnce.set(true);
    }
}
