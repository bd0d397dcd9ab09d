package io.rattan.client;

import io.rattan.core.id.Id;
import io.rattan.core.owned.OwnerSignatures;
import io.rattan.core.owned.SignedBytes;
import io.rattan.core.owned.SignedOp;
import java.util.ArrayList;
import java.util.List;

/**
 * The client's own check of what a get returned: an owned value is handed to the caller only when its owner's
 * signature verifies over the key asked for and the bytes received, so that neither a gateway nor a replica can make
 * one up or alter it. Run on the completion executor ({@link Delivery}), never on an event loop: a check costs about
 * 0.1 ms.
 */
final class OwnedReads {

    private OwnedReads() {
    }

    /** {@code result} without the owned values whose signatures do not verify, each counted in {@code metrics}. */
    static GetResult checked(Id key, GetResult result, ClientMetrics metrics) {
        List<GetResult.Value> kept = new ArrayList<>(result.values().size());
        for (GetResult.Value v : result.values()) {
            if (!v.isOwned() || OwnerSignatures.verifies(v.owner(), SignedOp.PUT, SignedBytes.DEFAULT_NAMESPACE, key,
                    v.valueHash())) {
                kept.add(v);
            }
        }
        int dropped = result.values().size() - kept.size();
        if (dropped == 0) {
            return result;
        }
        metrics.forged(dropped);
        return new GetResult(List.copyOf(kept), result.hops(), result.pages(), result.placemark(), result.cost(),
                result.partial());
    }
}
