package io.rattan.client;

import io.rattan.api.Id;
import io.rattan.api.SignedOp;
import io.rattan.api.ValueFilter;
import io.rattan.core.owned.OwnerSignatures;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The client's own check of what a get returned: an owned value is handed to the caller only when its owner's
 * signature verifies over the key asked for and the bytes received, so that neither a gateway nor a replica can make
 * one up or alter it. Run on the completion executor ({@link Delivery}), never on an event loop: a check costs about
 * 0.1 ms.
 */
final class OwnedReads {

    private OwnedReads() {
    }

    /**
     * {@code result} without the owned values whose signatures do not verify and the values outside the get's
     * {@code filter} (a node answered with what was not asked for), each counted in {@code metrics}, and with one
     * version of each owner's value, the highest sequence (pages read at different moments may hold two).
     */
    static GetResult checked(String namespace, Id key, ValueFilter filter, GetResult result, ClientMetrics metrics) {
        if (filter.isNone() && result.values().stream().noneMatch(GetResult.Value::isOwned)) {
            return result;
        }
        List<GetResult.Value> kept = new ArrayList<>(result.values().size());
        Map<List<Object>, Integer> slots = new HashMap<>();
        int forged = 0;
        for (GetResult.Value v : result.values()) {
            if (!filter.matches(v.owner())) {
                forged++;
            } else if (!v.isOwned()) {
                kept.add(v);
            } else if (!OwnerSignatures.verifies(v.owner(), SignedOp.PUT, namespace, key,
                    v.valueHash())) {
                forged++;
            } else {
                Integer at = slots.putIfAbsent(List.of(v.owner().owner(), v.owner().valueId()), kept.size());
                if (at == null) {
                    kept.add(v);
                } else if (Long.compareUnsigned(v.owner().seq(), kept.get(at).owner().seq()) > 0) {
                    kept.set(at, v);
                }
            }
        }
        if (kept.size() == result.values().size()) {
            return result;
        }
        metrics.forged(forged);
        return new GetResult(List.copyOf(kept), result.hops(), result.pages(), result.placemark(), result.cost(),
                result.partial());
    }
}
