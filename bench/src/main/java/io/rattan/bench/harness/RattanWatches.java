package io.rattan.bench.harness;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.client.Watch;
import io.rattan.client.WatchListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * Watches over Rattan's binary RPC: one client per gateway (so that watch i stays at gateway i, and each gateway's
 * events reach this process on a connection and a completion thread of their own), and one more client, knowing
 * every gateway, for the puts.
 */
final class RattanWatches implements WatchTarget {

    private final List<RattanClient> perGateway = new ArrayList<>();
    private final RattanClient writer;
    private final Queue<Watch> watches = new ConcurrentLinkedQueue<>();

    RattanWatches(List<Address> gateways, Duration timeout) {
        for (Address g : gateways) {
            perGateway.add(RattanClient.builder().gateways(List.of(g)).attemptTimeout(timeout).totalTimeout(timeout)
                    .loadRing(false).build());
        }
        writer = RattanClient.builder().gateways(gateways).attemptTimeout(timeout).totalTimeout(timeout).build();
    }

    @Override
    public int gateways() {
        return perGateway.size();
    }

    @Override
    public CompletableFuture<Void> watch(int gateway, Id key, Consumer<byte[]> heard) {
        CompletableFuture<Void> ready = new CompletableFuture<>();
        watches.add(perGateway.get(gateway).watch(key, new WatchListener() {
            @Override
            public void onValue(GetResult.Value value) {
                heard.accept(value.bytes());
            }

            @Override
            public void onReady() {
                ready.complete(null);
            }

            @Override
            public void onEnded(RattanException cause) {
                ready.completeExceptionally(cause);
            }
        }));
        return ready;
    }

    @Override
    public CompletableFuture<Void> put(Id key, byte[] value, int ttlSeconds) {
        return writer.put(key, value, Duration.ofSeconds(ttlSeconds)).thenApply(r -> null);
    }

    @Override
    public void close() {
        watches.forEach(Watch::close);
        perGateway.forEach(RattanClient::close);
        writer.close();
    }
}
