package io.rattan.bench.harness;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Rattan through its binary RPC, with the Java client: the client races multi-gateway and hedged gets itself. */
final class BinaryTarget implements Target {

    private final RattanClient client;

    /** @param maxRetries the client's retries within the timeout; null for the client's default */
    BinaryTarget(List<Address> gateways, Duration timeout, Integer maxRetries) {
        RattanClient.Builder b = RattanClient.builder()
                .gateways(gateways)
                .attemptTimeout(timeout)
                .totalTimeout(timeout);
        if (maxRetries != null) {
            b.maxRetries(maxRetries);
        }
        this.client = b.build();
    }

    @Override
    public CompletableFuture<GetAnswer> get(Id key, GetMode mode) {
        return client.get(key, mode.options()).handle((r, e) -> {
            if (e != null) {
                throw failure(e);
            }
            return answer(r);
        });
    }

    @Override
    public CompletableFuture<Void> put(Id key, byte[] value, Duration ttl) {
        return client.put(key, value, ttl).handle((r, e) -> {
            if (e != null) {
                throw failure(e);
            }
            return null;
        });
    }

    @Override
    public String refuses(GetMode mode) {
        return mode.name().equals(GetMode.OPENDHT) ? "the opendht mode is for --target opendht" : null;
    }

    @Override
    public void close() {
        client.close();
    }

    private static GetAnswer answer(GetResult r) {
        List<byte[]> values = new ArrayList<>(r.values().size());
        for (GetResult.Value v : r.values()) {
            values.add(v.bytes());
        }
        return new GetAnswer(values, r.hops(), r.cost().messages(), r.cost().bytes());
    }

    private static TargetFailure failure(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof RattanException) {
            RattanException re = (RattanException) cause;
            return new TargetFailure(re.status() == Status.TIMEOUT, re.status() + ": " + re.getMessage());
        }
        return new TargetFailure(false, String.valueOf(cause));
    }
}
