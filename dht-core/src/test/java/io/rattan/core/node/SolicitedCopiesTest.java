package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a member that is no replica of a key may hand this node: only what this node asked it for, of keys it
 * replicates, from a member, while the ask stands. This node S (0x80…01, k = 2) has heard A (0x80…02), B (0x80…03)
 * and C (0x80…04): KEY's replicas are S and A, B the next beyond.
 */
class SolicitedCopiesTest {

    private static final Id KEY = Id.fromHex("8000000000000000000000000000000000000000");
    /** A key whose replicas and next are A, B and C: S does not replicate it. */
    private static final Id FAR_KEY = Id.fromHex("8000000000000000000000000000000000000005");
    private static final Bytes SLOT = Bytes.utf8("v").sha256();

    private final VirtualScheduler scheduler = new VirtualScheduler(1_700_000_000_000L);
    private final Contact a = contact("8000000000000000000000000000000000000002", 2);
    private final Contact c = contact("8000000000000000000000000000000000000004", 4);
    private final HandBuiltNode node = HandBuiltNode.of(contact("8000000000000000000000000000000000000001", 1),
            NodeConfig.defaults().withReplicas(2, 1), scheduler, NodeListener.NONE, (to, e) -> { });
    private final SolicitedCopies solicited = new SolicitedCopies(node.ctx(), node.members());

    SolicitedCopiesTest() {
        node.members().heard(a);
        node.members().heard(contact("8000000000000000000000000000000000000003", 3));
        node.members().heard(c);
    }

    private static Contact contact(String hex, int host) {
        return new Contact(Id.fromHex(hex), new Address("10.0.0." + host, 4000));
    }

    @Test
    void aMemberMayHandWhatItWasAskedForOfAKeyThisNodeReplicates() {
        solicited.asked(c, List.of(new DigestEntry(KEY, SLOT, false), new DigestEntry(FAR_KEY, SLOT, false)));

        assertThat(solicited.asked(c, KEY, SLOT)).as("asked, of a key this node replicates").isTrue();
        assertThat(solicited.asked(c, KEY, Bytes.utf8("w").sha256())).as("another slot, not asked").isFalse();
        assertThat(solicited.asked(a, KEY, SLOT)).as("asked of another member").isFalse();
        assertThat(solicited.asked(c, FAR_KEY, SLOT)).as("a key this node does not replicate").isFalse();
    }

    @Test
    void aStrangerIsAskedForNothing() {
        Contact stranger = contact("0000000000000000000000000000000000000009", 9);
        solicited.asked(stranger, List.of(new DigestEntry(KEY, SLOT, false)));
        assertThat(solicited.asked(stranger, KEY, SLOT)).isFalse();
        // A member's id at another address is no member either.
        Contact elsewhere = new Contact(c.id(), new Address("10.0.0.99", 4000));
        solicited.asked(elsewhere, List.of(new DigestEntry(KEY, SLOT, false)));
        assertThat(solicited.asked(elsewhere, KEY, SLOT)).isFalse();
    }

    @Test
    void anAskLapsesAfterItsTime() {
        solicited.asked(c, List.of(new DigestEntry(KEY, SLOT, false)));
        scheduler.runFor(SolicitedCopies.TTL_NANOS - 1);
        assertThat(solicited.asked(c, KEY, SLOT)).isTrue();
        scheduler.runFor(1);
        assertThat(solicited.asked(c, KEY, SLOT)).isFalse();
    }

    @Test
    void asksAreBoundedPerMemberOldestForgottenFirst() {
        List<DigestEntry> many = new ArrayList<>();
        for (int i = 0; i <= SolicitedCopies.PER_PEER_MAX; i++) {
            many.add(new DigestEntry(KEY, Bytes.utf8("v" + i).sha256(), false));
        }
        solicited.asked(c, many);
        assertThat(solicited.asked(c, KEY, many.get(0).slot())).as("the oldest, forgotten").isFalse();
        assertThat(solicited.asked(c, KEY, many.get(1).slot())).isTrue();
        assertThat(solicited.asked(c, KEY, many.get(SolicitedCopies.PER_PEER_MAX).slot())).isTrue();
    }
}
