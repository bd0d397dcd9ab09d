package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.ClientMessages.IterativeGetReply;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.net.Contact;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which node answers a get near the edge of its leaf set, built from its parts without a network. This node S sits
 * at 0x50… with a full leaf set of 3 per side: 0x40…, 0x30…, 0x20… counter-clockwise and 0x60…, 0x70…, 0x80…
 * clockwise; k = 4. A node it cannot see may lie just beyond 0x80… (the fault simulator's ring had one there).
 */
class GetAnswersEdgeTest {

    private static final Bytes SECRET = Bytes.utf8("s");

    private VirtualScheduler scheduler;
    private MemoryStore store;
    private GetAnswers gets;
    private Membership members;

    private static Contact contact(String leadingHex, int host) {
        return new Contact(Id.fromHex(leadingHex + "00000000000000000000000000000000000001".substring(0,
                40 - leadingHex.length())), new Address("10.0.0." + host, 4000));
    }

    private static Id key(String leadingHex) {
        return Id.fromHex(leadingHex + "0".repeat(40 - leadingHex.length()));
    }

    @BeforeEach
    void buildNode() {
        buildNode(List.of("40", "30", "20", "60", "70", "80"));
    }

    private void buildNode(List<String> memberHexes) {
        scheduler = new VirtualScheduler(1_700_000_000_000L);
        store = new MemoryStore(scheduler::epochMillis);
        Contact self = contact("50", 1);
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3).withReplicas(4, 2);
        HandBuiltNode node = HandBuiltNode.of(self, config, scheduler, NodeListener.NONE, (to, e) -> { });
        members = node.members();
        LocalReplica replica = new LocalReplica(config, store, scheduler, node.ctx().tag());
        gets = new GetAnswers(node.ctx(), members, replica);
        int host = 2;
        for (String hex : memberHexes) {
            members.heard(contact(hex, host++));
        }
    }

    private void hold(Id key) {
        Bytes v = Bytes.utf8("v");
        store.write(StoredRecord.value(key, v, scheduler.epochMillis() + 60_000, SecretBinding.of(SECRET, key,
                v.sha256())));
    }

    @Test
    void aReplicaWhoseLeafSetEndsCloserToTheKeyThanItselfPassesTheGetOn() {
        // 0x78…: 0x70… and 0x80… are 0x08… away, 0x60… 0x18…, this node 0x28…: the fourth closest it sees. But the
        // last member it knows clockwise, 0x80…, is closer to the key than it is, so a node beyond 0x80… (0x90…,
        // 0x18… away) may be closer too: a replica that holds the value where this node holds none of it.
        Id nearTheEdge = key("78");
        hold(nearTheEdge);
        assertThat(members.isReplica(nearTheEdge)).as("a replica in its own view").isTrue();

        assertThat(gets.reach().seesPastKey(nearTheEdge)).isFalse();
        assertThat(gets.answersGet(nearTheEdge)).as("it answers gets of a key it cannot see all around").isFalse();
        IterativeGetReply iterative = gets.answerIterative(new IterativeGet(nearTheEdge, 0, Bytes.EMPTY, false));
        assertThat(iterative.answered()).isFalse();
        assertThat(iterative.contacts()).as("closer nodes named instead").isNotEmpty();
    }

    @Test
    void aReplicaThatSeesPastTheKeyAnswers() {
        // 0x62…: 0x60… is 0x02… away, 0x70… 0x0e…, this node 0x12…; the edge 0x80… is 0x1e… away, farther than this
        // node, so every node closer than this one is in its leaf set.
        Id inside = key("62");
        hold(inside);

        assertThat(gets.reach().seesPastKey(inside)).isTrue();
        assertThat(gets.answersGet(inside)).isTrue();
    }

    @Test
    void aNodeHoldingNothingIsNoRootWhileACloserNeighbourIsOnlySuspected() {
        // 0x57…: this node is 0x07… away, 0x60… 0x09…. Then 0x58… (0x01… away) joins, the key's root, and is suspected
        // for a moment (a request to it outlasted its RTO) while this node holds nothing of the key.
        Id key = key("57");
        Contact busy = contact("58", 9);
        members.heard(busy);
        assertThat(gets.answersGet(key)).as("a closer usable node: the get goes on").isFalse();

        members.peerTimedOut(busy);
        assertThat(members.usable(busy)).as("suspected").isFalse();
        assertThat(gets.answersGet(key)).as("holding nothing, it does not answer for a suspect that may hold it")
                .isFalse();

        hold(key);
        assertThat(gets.answersGet(key)).as("holding the key, it answers as before").isTrue();
    }

    @Test
    void aSideOneShortAfterADeathEndsAtItsNearerMember() {
        // 0x3a…: this node is 0x16… away, 0x30… 0x0a…, 0x20… 0x1a…. With 0x20… a member, every node closer than this
        // one lies between 0x20… and this node, where the leaf set holds all: it sees past the key.
        Id key = key("3a");
        assertThat(gets.reach().seesPastKey(key)).isTrue();
        // 0x20… is declared dead: until an exchange refills the side, a node between 0x24… and 0x30… (say 0x28…, the
        // one that would take its place) may be closer to the key than this node, unseen.
        members.forget(contact("20", 4));
        assertThat(gets.reach().seesPastKey(key)).as("a short side is no small overlay").isFalse();
    }

    @Test
    void aShortSideDoesNotMakeTheOtherSideSeeFurther() {
        // The fault simulator's case (seed 38): one side a member short, a key beyond the full side's edge.
        Id nearTheEdge = key("78");
        hold(nearTheEdge);
        members.forget(contact("20", 4));
        assertThat(members.isReplica(nearTheEdge)).as("a replica in its own view").isTrue();
        assertThat(gets.reach().seesPastKey(nearTheEdge)).isFalse();
        assertThat(gets.answersGet(nearTheEdge)).as("it passes the get on, as with both sides full").isFalse();
    }

    @Test
    void aSideEndingWithANodeFromTheOtherHalfOfTheRingEndsBeforeIt() {
        // The fault simulator's case (seed 375): this node knows only two nodes clockwise, 0x60… and 0x70…, and its
        // clockwise side, with room, takes 0x10… (0x40… away counter-clockwise, behind the full counter-clockwise
        // side). 0xa0…: 0x70… is 0x30… away, 0x60… 0x40…, this node 0x50…, 0x10… 0x70…: a replica in its own view,
        // with its side's last member farther from the key than itself. But nodes between 0x70… and 0x10… it does
        // not know may be closer.
        buildNode(List.of("40", "30", "20", "60", "70", "10"));
        Id key = key("a0");
        hold(key);
        assertThat(members.isReplica(key)).as("a replica in its own view").isTrue();

        assertThat(gets.reach().seesPastKey(key)).isFalse();
        assertThat(gets.answersGet(key)).as("it passes the get on").isFalse();
        assertThat(gets.reach().seesPastKey(key("58"))).as("a key well inside the side's true edge").isTrue();
    }

    @Test
    void aSideThatTookTheOtherSidesNearestMemberHoldsNoWholeOverlay() {
        // The fault simulator's case (seed 323): 0x70… and 0x80… die, and the clockwise side, with room, takes the
        // next contact offered, 0x40…, this node's nearest counter-clockwise neighbour. The sides share a member, but
        // 0x30… and 0x20…, which lie between 0x60… and 0x40… going clockwise, are not on the clockwise side: nodes
        // there are unknown. 0x68…: 0x60… is 0x08… away, this node 0x18…, 0x40… 0x28…, 0x30… 0x38…: a replica in its
        // own view, and 0x60…, its clockwise edge, is closer to the key than itself.
        members.forget(contact("80", 7));
        members.forget(contact("70", 6));
        members.heard(contact("40", 2));
        assertThat(members.clockwise()).as("the clockwise side").containsExactly(contact("60", 5), contact("40", 2));
        Id key = key("68");
        hold(key);
        assertThat(members.isReplica(key)).as("a replica in its own view").isTrue();

        assertThat(gets.reach().seesPastKey(key)).isFalse();
        assertThat(gets.answersGet(key)).as("it passes the get on").isFalse();
    }

    @Test
    void aNodeCloserInTheRoutingTableThanInTheLeafSetMeansTheLeafSetIsIncomplete() {
        // The fault simulator's case (seed 215): the three clockwise members die, and the clockwise side, refilled
        // with the contacts offered next, holds the counter-clockwise side's three: the sides look like an overlay of
        // four. But the routing table still holds 0xc0…, which no side took: a node of the overlay the leaf set lacks.
        // 0xb0…: this node is 0x60… away, 0xc0… 0x10….
        members.heard(contact("c0", 8));
        members.forget(contact("60", 5));
        members.forget(contact("70", 6));
        members.forget(contact("80", 7));
        members.heard(contact("40", 2));
        members.heard(contact("30", 3));
        members.heard(contact("20", 4));
        assertThat(members.clockwise()).as("the clockwise side").containsExactly(contact("20", 4), contact("30", 3),
                contact("40", 2));
        Id key = key("b0");
        hold(key);
        assertThat(members.isReplica(key)).as("a replica in its own view").isTrue();

        assertThat(gets.reach().seesPastKey(key)).isFalse();
        assertThat(gets.answersGet(key)).as("it passes the get on").isFalse();
    }

    @Test
    void sidesThatOverlapBothWaysAfterDeathsHoldNoWholeOverlayWhileTheRoutingTableKnowsMore() {
        // The fault simulator's case (seed 1049 of issue 34's long run): 0x30… and 0x20… are declared dead, and the
        // counter-clockwise side, with room, takes 0x80…, the clockwise side's last member: each side's last member is
        // on the other side, as in an overlay of five. But the routing table still holds 0xc0…, which no side took.
        // 0x38…: 0x40… is 0x08… away, this node 0x18…: a replica in its own view, and nodes near 0x30… are unknown.
        members.heard(contact("c0", 8));
        members.forget(contact("30", 3));
        members.forget(contact("20", 4));
        members.heard(contact("80", 7));
        assertThat(members.counterClockwise()).as("the counter-clockwise side").containsExactly(contact("40", 2),
                contact("80", 7));
        Id key = key("38");
        hold(key);
        assertThat(members.isReplica(key)).as("a replica in its own view").isTrue();

        assertThat(gets.reach().seesPastKey(key)).isFalse();
        assertThat(gets.answersGet(key)).as("it passes the get on").isFalse();
    }

    @Test
    void aLeafSetWhoseSidesShareAMemberHoldsTheWholeOverlay() {
        // Two other nodes: each side holds both, and every node closer to any key is known.
        buildNode(List.of("40", "60"));
        for (String hex : List.of("00", "3f", "78", "c0")) {
            assertThat(gets.reach().seesPastKey(key(hex))).as(hex).isTrue();
        }
    }

    @Test
    void aNodeAloneSeesPastEveryKey() {
        buildNode(List.of());
        assertThat(gets.reach().seesPastKey(key("c0"))).isTrue();
        assertThat(gets.answersGet(key("c0"))).isTrue();
    }

    @Test
    void theRootAlwaysSeesPastItsKey() {
        Id own = key("51");
        assertThat(members.isRoot(own)).isTrue();
        assertThat(gets.reach().seesPastKey(own)).isTrue();
        assertThat(gets.answersGet(own)).as("the root answers, holding records or not").isTrue();
    }

    @Test
    void placesAPeerAmongAKeysNearestOnlyWhereItsLeafSetReachesAsFarFromTheKeyAsThePeer() {
        // 0x74…: 0x70… is 0x04… away and the clockwise end, 0x80…, 0x0C…; 0x60… is 0x14… away, and a node this node
        // cannot see just beyond 0x80… would be closer than that.
        Id key = key("74");
        assertThat(gets.reach().knowsAllCloser(key, contact("70", 3))).isTrue();
        assertThat(gets.reach().knowsAllCloser(key, contact("60", 5))).isFalse();
    }
}
