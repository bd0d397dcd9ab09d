package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.node.WatchedValues.Change;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a gateway's watch makes of the records its key's replicas send, when the same bytes are put with two secrets:
 * two records (two slots), one value to the client, news when the first copy appears and when the last one goes.
 */
class WatchedValuesTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final Id KEY = Id.ofName("watched");
    private static final Bytes A = Bytes.utf8("secret a");
    private static final Bytes B = Bytes.utf8("secret b");
    private static final Bytes V = Bytes.utf8("shared");

    /** A copy of V put with {@code secret}, as a replica holds and sends it. */
    private static ReplicaRecord copy(Bytes secret, long expiresAtMillis) {
        return new ReplicaRecord(KEY, V.sha256(), V, expiresAtMillis, SecretBinding.of(secret, KEY, V.sha256()),
                Bytes.EMPTY, false);
    }

    /**
     * The tombstone a remove of V with {@code secret} leaves, as a watching gateway hears of it (Watchers): without
     * the secret, with the binding it opens, so naming the slot of the copy it removed.
     */
    private static ReplicaRecord removed(Bytes secret, long expiresAtMillis) {
        ReplicaRecord held = new ReplicaRecord(KEY, V.sha256(), Bytes.EMPTY, expiresAtMillis, Bytes.EMPTY, secret,
                true);
        ReplicaRecord told = new ReplicaRecord(KEY, V.sha256(), Bytes.EMPTY, expiresAtMillis,
                SecretBinding.of(secret, KEY, V.sha256()), Bytes.EMPTY, true);
        assertThat(told.slot()).as("the slot of the tombstone a replica holds").isEqualTo(held.slot());
        return told;
    }

    @Test
    void theSameBytesUnderTwoBindingsAreOneValueUntilTheLastCopyIsRemoved() {
        WatchedValues watched = new WatchedValues();

        List<Change> first = watched.apply(List.of(copy(A, NOW + 60_000), copy(B, NOW + 90_000)), NOW);
        assertThat(first).extracting(Change::kind).containsExactly(WatchKind.VALUE);
        assertThat(first).extracting(Change::valueHash).containsExactly(V.sha256());
        assertThat(watched.live(NOW)).extracting(Change::valueHash).containsExactly(V.sha256());
        assertThat(watched.apply(List.of(copy(A, NOW + 60_000), copy(B, NOW + 90_000)), NOW))
                .as("the same copies from another replica").isEmpty();

        assertThat(watched.apply(List.of(removed(A, NOW + 120_000)), NOW)).as("A's copy gone, B's live").isEmpty();
        assertThat(watched.live(NOW)).extracting(Change::valueHash).containsExactly(V.sha256());

        List<Change> last = watched.apply(List.of(removed(B, NOW + 120_000)), NOW);
        assertThat(last).extracting(Change::kind).containsExactly(WatchKind.REMOVED);
        assertThat(last).extracting(Change::valueHash).containsExactly(V.sha256());
        assertThat(watched.live(NOW)).isEmpty();
        assertThat(watched.apply(List.of(copy(A, NOW + 60_000), copy(B, NOW + 90_000)), NOW))
                .as("late copies of removed records").isEmpty();
    }

    @Test
    void theSameBytesUnderTwoBindingsExpireOnceWhenTheLastCopyDoes() {
        WatchedValues watched = new WatchedValues();
        assertThat(watched.apply(List.of(copy(A, NOW + 60_000), copy(B, NOW + 90_000)), NOW)).hasSize(1);

        assertThat(watched.expire(NOW + 60_000)).as("B's copy lives on").isEmpty();
        assertThat(watched.live(NOW + 60_000)).extracting(Change::valueHash).containsExactly(V.sha256());

        List<Change> gone = watched.expire(NOW + 90_000);
        assertThat(gone).extracting(Change::kind).containsExactly(WatchKind.EXPIRED);
        assertThat(gone).extracting(Change::valueHash).containsExactly(V.sha256());
        assertThat(watched.live(NOW + 90_000)).isEmpty();
    }
}
