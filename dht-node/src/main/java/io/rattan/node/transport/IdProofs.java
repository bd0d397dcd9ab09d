package io.rattan.node.transport;

import io.rattan.api.Id;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.net.Contact;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The proof of an id in a {@code ChallengeAnswer} (protocol 13, docs/protocol.md): the answerer signs the nonce and
 * the challenger's whole contact, as the challenger's {@code Hello} claimed it. Binding the challenger stops a relay:
 * a node that claims another's id cannot have that node sign a nonce meant for a third, because the owner signs only
 * the contact of whoever challenged it, and answers only at the address that contact names. Stateless.
 */
final class IdProofs {

    /** The first protocol version whose answers carry a proof, and whose peers must give one. */
    static final int SINCE = 13;
    private static final byte[] DOMAIN = "rattan/challenge-answer/13\0".getBytes(StandardCharsets.US_ASCII);

    private IdProofs() {
    }

    /** {@code key}'s proof for the challenge {@code nonce} that {@code challenger} sent. */
    static IdProof prove(NodeKey key, long nonce, Contact challenger) {
        return new IdProof(key.publicKey(), key.sign(signed(nonce, challenger)));
    }

    /**
     * Whether {@code proof} shows that the answerer holds the key of {@code claimedId}: the key's SHA-1 is that id and
     * the signature is the key's over {@code nonce} and {@code self}, the challenger that checks it.
     */
    static boolean holds(IdProof proof, Id claimedId, long nonce, Contact self) {
        return proof != null && NodeKey.idOf(proof.publicKey()).equals(claimedId)
                && NodeKey.verifies(proof.publicKey(), signed(nonce, self), proof.signature());
    }

    private static byte[] signed(long nonce, Contact challenger) {
        byte[] host = challenger.address().host().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(DOMAIN.length + 8 + Id.BYTES + 4 + 4 + host.length)
                .put(DOMAIN).putLong(nonce).put(challenger.id().toBytes())
                .putInt(challenger.address().port()).putInt(challenger.gatewayPort()).put(host).array();
    }
}
