package io.rattan.node.transport;

import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.net.Contact;
import java.util.function.BiFunction;

/** The proof of a test peer's id, for raw-socket peers outside this package ({@code Handshakes.RawPeer}). */
public final class TestProofs {

    private TestProofs() {
    }

    /** Proves {@code key}'s id for a nonce and the challenging node's contact, as a node of 13 does. */
    public static BiFunction<Long, Contact, IdProof> prover(NodeKey key) {
        return (nonce, challenger) -> IdProofs.prove(key, nonce, challenger);
    }
}
