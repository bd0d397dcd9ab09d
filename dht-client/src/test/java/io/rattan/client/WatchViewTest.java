package io.rattan.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The client's side of a watch's failover, with made-up events: each value told once, a new snapshot diffed. */
class WatchViewTest {

    private static final Id KEY = Id.ofName("watch-view");

    private final List<String> heard = new ArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final WatchView view = new WatchView("default", KEY, ValueFilter.NONE, new WatchListener() {
        @Override
        public void onValue(GetResult.Value value) {
            heard.add("value " + value.utf8() + (value.isOwned() ? "@" + value.owner().seq() : ""));
        }

        @Override
        public void onReady() {
            heard.add("ready");
        }

        @Override
        public void onRemoved(GetResult.Value value) {
            heard.add("removed " + value.utf8());
        }

        @Override
        public void onExpired(GetResult.Value value) {
            heard.add("expired " + value.utf8());
        }
    }, clock::get);

    @Test
    void aSnapshotFromAnotherGatewayTellsOnlyWhatIsNewAndWhatIsGone() {
        view.begin();
        view.apply(value("a", 60_000));
        view.apply(value("b", 60_000));
        view.apply(value("short", 3_000));
        view.apply(ready(""));
        view.apply(value("c", 60_000));
        assertThat(heard).containsExactly("value a", "value b", "value short", "ready", "value c");
        heard.clear();

        // Failover: the new gateway's snapshot has a, c and d; b was removed and short expired meanwhile.
        clock.addAndGet(5_000);
        view.begin();
        view.apply(value("a", 55_000));
        view.apply(value("c", 55_000));
        view.apply(value("d", 60_000));
        assertThat(heard).containsExactly("value d");
        view.apply(ready(""));
        assertThat(heard).containsExactlyInAnyOrder("value d", "removed b", "expired short");
        assertThat(heard).doesNotContain("ready");
        assertThat(view.liveCount()).isEqualTo(3);
    }

    @Test
    void aResumeIsNotDiffed() {
        view.begin();
        view.apply(value("a", 60_000));
        view.apply(value("b", 60_000));
        view.apply(ready(""));
        heard.clear();

        view.begin();
        view.apply(value("c", 60_000));
        view.apply(gone(WatchKind.REMOVED, "a"));
        view.apply(ready(WatchEvent.RESUMED));
        assertThat(heard).containsExactly("value c", "removed a");
        assertThat(view.liveCount()).isEqualTo(2);
    }

    @Test
    void aRemovalOfAValueNeverToldIsNotTold() {
        view.begin();
        view.apply(ready(""));
        view.apply(gone(WatchKind.EXPIRED, "x"));
        view.apply(value("x", 1_000));
        view.apply(value("x", 1_000));
        view.apply(gone(WatchKind.EXPIRED, "x"));
        view.apply(gone(WatchKind.REMOVED, "x"));
        assertThat(heard).containsExactly("ready", "value x", "expired x");
    }

    @Test
    void anOwnedValueIsToldAgainOnlyForAHigherSequenceAndAForgedOneNever() {
        OwnerKey owner = OwnerKey.generate();
        Bytes slot = Bytes.wrap(new byte[32]);
        view.begin();
        view.apply(owned(owner, slot, "v1", 1));
        view.apply(ready(""));
        view.apply(owned(owner, slot, "v1", 1));
        view.apply(owned(owner, slot, "v2", 2));
        view.apply(owned(owner, slot, "v1", 1));
        OwnerStamp good = owner.sign(SignedOp.PUT, KEY, 7, 3, expiry(), utf8("v3").sha256());
        view.apply(WatchEvent.of(WatchKind.VALUE, 1, 9, slot, new ValueEntry(utf8("forged"), 60_000, good)));
        assertThat(heard).containsExactly("value v1@1", "ready", "value v2@2");
        assertThat(view.takeForged()).isEqualTo(1);
    }

    private WatchEvent value(String v, long ttlMillis) {
        return WatchEvent.of(WatchKind.VALUE, 1, 1, utf8(v).sha256(), new ValueEntry(utf8(v), ttlMillis));
    }

    private static WatchEvent gone(WatchKind kind, String v) {
        return WatchEvent.of(kind, 1, 2, utf8(v).sha256(), WatchEvent.NO_VALUE);
    }

    private static WatchEvent ready(String detail) {
        return new WatchEvent(WatchKind.READY, 1, 1, Bytes.EMPTY, WatchEvent.NO_VALUE, Status.OK, detail);
    }

    private WatchEvent owned(OwnerKey owner, Bytes slot, String v, long seq) {
        OwnerStamp stamp = owner.sign(SignedOp.PUT, KEY, 7, seq, expiry(), utf8(v).sha256());
        return WatchEvent.of(WatchKind.VALUE, 1, seq, slot, new ValueEntry(utf8(v), 60_000, stamp));
    }

    private long expiry() {
        return clock.get() / 1000 + 3600;
    }

    private static Bytes utf8(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
