package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.Store;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A disk whose sync never returns, on a real node (real sockets, real RocksDB; issue 17): the store's
 * {@code whenDurable} keeps its actions and never runs them, as a WAL syncer stuck in {@code fdatasync} would. A put
 * over HTTP is answered 503 with {@code Retry-After} once its own copy's wait gives up (half the request timeout),
 * not left to time out, and {@code /metrics} counts the wait given up.
 */
class HungSyncNodeTest extends HookedSingleNode {

    private static final long REQUEST_TIMEOUT_MILLIS = 4_000;

    /** A store whose syncs hang: every durable action is kept, none is run. */
    private static final class HungSync extends ForwardingStore {
        final AtomicInteger held = new AtomicInteger();

        HungSync(Store store) {
            super(store);
        }

        @Override
        public void whenDurable(Runnable action) {
            held.incrementAndGet();
        }
    }

    @Test
    void aPutWhoseSyncNeverReturnsIsAnswered503WithRetryAfterAndCounted() throws Exception {
        HungSync[] store = new HungSync[1];
        RattanNode node = start(REQUEST_TIMEOUT_MILLIS, s -> store[0] = new HungSync(s));
        try {
            await().atMost(WAIT).until(() -> node.status().ready());
            String key = "/v1/keys/" + node.contact().id().toHex();
            HttpResponse<String> put = http.send(request(node, key).timeout(WAIT)
                    .POST(HttpRequest.BodyPublishers.ofString("never synced")).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(put.statusCode()).as(put.body()).isEqualTo(503);
            assertThat(put.headers().firstValue("Retry-After")).contains("1");
            assertThat(put.body()).contains("storage-io-error");
            assertThat(store[0].held.get()).as("the own copy waited for a sync").isPositive();
            String metrics = http.send(request(node, "/metrics").timeout(WAIT).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).contains("rattan_store_durable_gaveup_total{wait=\"put\"} 1.0");
        } finally {
            node.halt();
        }
    }
}
