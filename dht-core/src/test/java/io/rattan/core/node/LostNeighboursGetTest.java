package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.net.Contact;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node that lost its neighbours (every one declared dead: it was cut off alone) does not answer gets from its own
 * store, as it refuses puts: an overlay that really has fewer nodes than W runs with a smaller W, so fewer than W nodes
 * in view means the others' puts since are not here. The fault simulator traced a node cut off alone that answered a
 * get 1.1 s after the heal, from an empty leaf set, without four puts (seed 143 of 51–2,050, docs/testing.md). On a
 * {@link ReplicaRig}: this node is KEY's root and holds a value of it; W = 2.
 */
class LostNeighboursGetTest extends ReplicaRig {

    LostNeighboursGetTest() {
        super(true, 600_000);
    }

    private void declareDead(List<Contact> peers) {
        peers.forEach(members::peerTimedOut);
        scheduler.runFor(config.rtoMaxMillis() * 1_000_000L);
    }

    @Test
    void aNodeThatLostEveryNeighbourAnswersUnavailableNotFromItsStoreAlone() {
        memory.write(value("held here"));
        declareDead(List.of(a, b, c));
        assertThat(members.leafMembers()).isEmpty();

        gets.serve(get());

        assertThat(sent(GetReply.class)).isEmpty();
        assertThat(sent(ErrorReply.class)).extracting(s -> ((ErrorReply) s.envelope().body()).status())
                .containsExactly(Status.UNAVAILABLE);
        assertThat(gets.answerIterative(new IterativeGet(KEY, 0, Bytes.EMPTY, false)).answered()).isFalse();
    }

    @Test
    void withOneOtherNodeInViewItAnswers() {
        memory.write(value("held here"));
        declareDead(List.of(b, c));
        assertThat(members.leafMembers()).containsExactly(a);

        assertThat(gets.answerIterative(new IterativeGet(KEY, 0, Bytes.EMPTY, false)).answered()).isTrue();
    }
}
