package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.net.Contact;
import io.rattan.core.testing.PlantedBugs;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which get answers a gateway takes (issue 39, item 1, gets). The gateway sits at 0x50… and knows 0x20… to 0x80…;
 * k = 4. Key 0x72…: its root is 0x70…, then 0x80…, 0x60… and the gateway itself, then 0x40… and 0x30….
 */
class GetAnswerCheckTest {

    private static final Id KEY = Id.fromHex("72" + "0".repeat(38));
    private static final int K = 4;

    private Membership members;
    private Contact self;
    private NodeContext ctx;
    private GetAnswerCheck check;

    private static Contact contact(String leadingHex, int host) {
        return new Contact(Id.fromHex(leadingHex + "0".repeat(37) + "1"), new Address("10.0.0." + host, 4000));
    }

    @BeforeEach
    void buildGateway() {
        VirtualScheduler scheduler = new VirtualScheduler(1_700_000_000_000L);
        self = contact("50", 1);
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3).withReplicas(K, 2);
        HandBuiltNode gateway = HandBuiltNode.of(self, config, scheduler, NodeListener.NONE, (to, e) -> { });
        members = gateway.members();
        ctx = gateway.ctx();
        check = new GetAnswerCheck(ctx, members, PlantedBugs.NONE);
        int host = 2;
        for (String hex : List.of("40", "30", "20", "60", "70", "80")) {
            members.heard(contact(hex, host++));
        }
    }

    private GetAnswerCheck.Verdict judge(String senderHex, GetOptions options, Message answer) {
        return GetAnswerCheck.judge(members, self, ClientGet.of(KEY, options),
                senderHex == null ? self : contact(senderHex, 9), answer, K);
    }

    private Contact askInstead(String senderHex, GetOptions options, Message answer) {
        GetAnswerCheck.Verdict v = judge(senderHex, options, answer);
        assertThat(v.refused()).as("refused").isFalse();
        return v.instead();
    }

    private static GetReply empty() {
        return new GetReply(Status.OK, List.of(), Bytes.EMPTY, 1, "");
    }

    private static GetReply value() {
        return new GetReply(Status.OK, List.of(new ValueEntry(Bytes.utf8("v"), 60_000)), Bytes.EMPTY, 1, "");
    }

    @Test
    void anEmptyAnswerCountsOnlyFromTheRootInThisView() {
        assertThat(askInstead("70", GetOptions.defaults(), empty())).isNull();
        assertThat(askInstead("80", GetOptions.defaults(), empty())).as("a replica, but not the root")
                .isEqualTo(contact("70", 6));
        assertThat(askInstead("30", GetOptions.defaults(), empty())).isEqualTo(contact("70", 6));
    }

    @Test
    void anAnswerWithValuesCountsFromAnyOfTheKReplicasInThisView() {
        assertThat(askInstead("80", GetOptions.defaults(), value())).isNull();
        assertThat(askInstead("60", GetOptions.defaults(), value())).as("third closest of those known").isNull();
        assertThat(askInstead("40", GetOptions.defaults(), value())).as("0x70, 0x80, 0x60 and this node are closer")
                .isEqualTo(contact("70", 6));
    }

    @Test
    void aQuorumGetsEmptyAnswerCountsFromAnyReplicaAsItsValuesDo() {
        GetOptions quorum = GetOptions.defaults().withQuorum(2);
        assertThat(askInstead("80", quorum, empty())).isNull();
        assertThat(askInstead("30", quorum, empty())).isEqualTo(contact("70", 6));
    }

    @Test
    void aSuspectCloserNodeCountsButIsNotAsked() {
        members.peerTimedOut(contact("70", 6));
        assertThat(askInstead("80", GetOptions.defaults(), empty())).as("the root in this view, 0x70… suspected")
                .isNull();
        assertThat(askInstead("60", GetOptions.defaults(), empty())).isEqualTo(contact("80", 7));
        assertThat(askInstead("40", GetOptions.defaults(), value())).as("0x70 (suspected), 0x80, 0x60, this node")
                .isEqualTo(contact("80", 7));
    }

    @Test
    void aValueFromBeyondTheReplicasIsRefusedWhenEveryCloserNodeIsSuspected() {
        members.peerTimedOut(contact("70", 6));
        members.peerTimedOut(contact("80", 7));
        members.peerTimedOut(contact("60", 5));
        GetAnswerCheck.Verdict v = judge("40", GetOptions.defaults(), value());
        assertThat(v.refused()).isTrue();
        Envelope refused = v.passOn(new Envelope(contact("40", 2), 5, value()));
        assertThat(refused.body()).isInstanceOfSatisfying(ErrorReply.class,
                e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE));
        assertThat(judge("40", GetOptions.defaults(), empty())).as("an empty one tells no more refused")
                .isEqualTo(GetAnswerCheck.Verdict.TAKE);
        assertThat(judge("60", GetOptions.defaults(), value())).as("one of the k closest known, suspects counted")
                .isEqualTo(GetAnswerCheck.Verdict.TAKE);
    }

    @Test
    void anAnswerSetAsideStandsAtItsDeadlineUnlessEveryCloserNodeHasComeToBeSuspected() {
        ClientGet get = ClientGet.of(KEY, GetOptions.defaults());
        Contact liar = contact("40", 9);
        assertThat(judge("40", GetOptions.defaults(), value()).instead()).as("set aside").isEqualTo(contact("70", 6));
        members.peerTimedOut(contact("70", 6));
        members.peerTimedOut(contact("80", 7));
        assertThat(check.atDeadline(get, liar, value())).as("0x60 still usable: it may be the one down")
                .isEqualTo(GetAnswerCheck.Verdict.TAKE);
        members.peerTimedOut(contact("60", 5));
        assertThat(check.atDeadline(get, liar, value()).refused()).as("cut off by the deadline").isTrue();
        assertThat(check.atDeadline(get, liar, empty())).as("an empty one tells no more refused")
                .isEqualTo(GetAnswerCheck.Verdict.TAKE);
        assertThat(new GetAnswerCheck(ctx, members, PlantedBugs.of(PlantedBugs.Bug.GET_ANSWERS_UNCHECKED))
                .atDeadline(get, liar, value())).as("planted off").isEqualTo(GetAnswerCheck.Verdict.TAKE);
    }

    @Test
    void aSecondAskReadsAQuorumAndAnswersAsTheGetAsked() {
        ClientGet second = GetAnswerCheck.secondAsk(ClientGet.of(KEY, GetOptions.defaults().withHedge(true)));
        assertThat(second.options().quorum()).isTrue();
        assertThat(second.options().maxCopies()).isEqualTo(1);
        ClientGet quorum = ClientGet.of(KEY, GetOptions.defaults().withQuorum(3));
        assertThat(GetAnswerCheck.secondAsk(quorum)).isSameAs(quorum);
        GetReply partial = new GetReply(Status.PARTIAL, value().values(), Bytes.EMPTY, 1, "");
        assertThat(((GetReply) GetAnswerCheck.partialAsOk(partial)).status()).isEqualTo(Status.OK);
        assertThat(((GetReply) GetAnswerCheck.partialAsOk(partial)).values()).isEqualTo(value().values());
    }

    @Test
    void theSecondAsksAnswerCountsTheFirstExchangeAsAHop() {
        Envelope second = GetAnswerCheck.afterSecondAsk(new Envelope(contact("70", 6), 5, value()));
        assertThat(((GetReply) second.body()).hops()).isEqualTo(2);
        assertThat(((GetReply) second.body()).values()).isEqualTo(value().values());
        Envelope error = new Envelope(contact("70", 6), 5, new ErrorReply(Status.TIMEOUT, "late"));
        assertThat(GetAnswerCheck.afterSecondAsk(error)).isSameAs(error);
    }

    @Test
    void aSecondAnswerOutOfTurnAgainFromTheFirstAnswersNodeIsSetAsideWhileACloserNodeIsUsable() {
        ClientGet second = GetAnswerCheck.secondAsk(ClientGet.of(KEY, GetOptions.defaults()));
        Envelope first = new Envelope(contact("40", 2), 5, value());
        members.peerTimedOut(contact("70", 6));
        assertThat(check.judgeAgain(second, first, new Envelope(contact("40", 2), 5, value())).instead())
                .as("the one asked, 0x70, suspected; 0x80 usable").isEqualTo(contact("80", 7));
        assertThat(check.judgeAgain(second, first, new Envelope(contact("30", 3), 5, value())))
                .as("another node's: a view that lags").isEqualTo(GetAnswerCheck.Verdict.TAKE);
        members.peerTimedOut(contact("80", 7));
        members.peerTimedOut(contact("60", 5));
        assertThat(check.judgeAgain(second, first, new Envelope(contact("40", 2), 5, value())))
                .as("no usable node closer: it may be the replica past dead ones")
                .isEqualTo(GetAnswerCheck.Verdict.TAKE);
    }

    @Test
    void thisNodesOwnAnswersAndErrorsAreNotJudged() {
        assertThat(askInstead(null, GetOptions.defaults(), empty())).isNull();
        assertThat(askInstead("30", GetOptions.defaults(), new ErrorReply(Status.UNAVAILABLE, "busy"))).isNull();
    }

    @Test
    void aSenderNoCloserNodeIsKnownThanCountsWhateverItAnswers() {
        Id farKey = Id.fromHex("f" + "0".repeat(39));
        // 0x20… is the closest node known to 0xf0… (0x30… away, past zero): this gateway knows none nearer to tell.
        assertThat(GetAnswerCheck.judge(members, self, ClientGet.of(farKey), contact("20", 9), empty(), K))
                .isEqualTo(GetAnswerCheck.Verdict.TAKE);
    }
}
