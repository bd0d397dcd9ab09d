package io.rattan.core.msg;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.RequestMessages.Routed;
import io.rattan.core.net.Contact;
import java.util.List;

/**
 * The messages of membership: liveness and RTT probes, the handshake that proves a node's id, joining, the
 * leaf-set exchanges and a graceful leave.
 */
public final class MembershipMessages {

    private MembershipMessages() {
    }

    /** Liveness and RTT probe. */
    public record Ping() implements Message {
        public MessageType type() {
            return MessageType.PING;
        }
    }

    /**
     * The answer to a {@link Ping}. A node answering another node's ping may suggest one of its leaf-set members that
     * falls in the same routing-table slot of the pinger as itself: a candidate the pinger can measure, so that its
     * table slots come to hold near nodes (proximity neighbour selection) rather than whichever nodes it learned
     * first. Clients and answers to clients suggest nothing.
     *
     * @param suggestions at most one contact
     * @param senderMillis the answering node's expiry clock ({@code ExpiryClock}) when it answered, epoch
     *                     milliseconds; 0 when unknown (a client's pong). The pinger corrects its own by it.
     */
    public record Pong(List<Contact> suggestions, long senderMillis) implements Message {
        /** A pong without the sender's time. */
        public Pong(List<Contact> suggestions) {
            this(suggestions, 0);
        }

        public Pong {
            suggestions = List.copyOf(suggestions);
            if (suggestions.size() > 1) {
                throw new IllegalArgumentException("a pong suggests at most one contact");
            }
        }

        /** A pong that suggests nothing. */
        public Pong() {
            this(List.of(), 0);
        }

        public MessageType type() {
            return MessageType.PONG;
        }
    }

    /** A next hop's receipt of a routed request; lets the sender re-route at once when it does not come. */
    public record HopAck() implements Message {
        public MessageType type() {
            return MessageType.HOP_ACK;
        }
    }

    /**
     * The first frame on every peer connection: the dialer claims the contact in the envelope's sender (its id, its
     * listening address, which must be an IP literal equal to the connection's source address, and its gateway port)
     * and, in the envelope's request id, the newest protocol version it speaks (since 12; 0 from a node of 11). The
     * listener proves the claimed port with a {@link Challenge} sent over a connection it dials to the claimed address;
     * until the claim is proven, nothing else is taken on the connection.
     *
     * @param version the frame's version: the oldest the dialer reads ({@code MessageCodec#oldestAccepted})
     */
    public record Hello(int version) implements Message {
        public MessageType type() {
            return MessageType.HELLO;
        }
    }

    /**
     * Sent by a listener that received a {@link Hello}, over a connection it dialed to the claimed address; the
     * envelope's request id is an unpredictable nonce. The node listening there answers with a
     * {@link ChallengeAnswer} on its own connection to the challenger, the one whose claim is being proven.
     */
    public record Challenge() implements Message {
        public MessageType type() {
            return MessageType.CHALLENGE;
        }
    }

    /**
     * Echoes a {@link Challenge}'s nonce (the envelope's request id) on the connection whose claim it proves. Since
     * 13 it proves the claimed id too: {@code proof} is the answerer's public key, whose SHA-1 is the id, and its
     * signature over the nonce and the challenger's contact (docs/protocol.md); null from a node of 12.
     */
    public record ChallengeAnswer(IdProof proof) implements Message {
        public MessageType type() {
            return MessageType.CHALLENGE_ANSWER;
        }
    }

    /** A node's proof that it holds the key its id is the hash of: the public key and a signature by it. */
    public record IdProof(Bytes publicKey, Bytes signature) {
    }

    /** Written back on a proven connection by its listener: the dialer may now send anything on it. */
    public record Welcome() implements Message {
        public MessageType type() {
            return MessageType.WELCOME;
        }
    }

    /**
     * What every node of a cluster must share (docs/deploy.md): k, W and the value limits. A joiner names its own
     * (protocol 12), and a node with others refuses its join.
     */
    public record ClusterTerms(int replicas, int writeQuorum, int valueBytesMax, int ttlSecondsMax) {
    }

    /**
     * Routed toward the joiner's own id; every node on the path sends the joiner a {@link JoinInfo}. {@code terms}:
     * the joiner's {@link ClusterTerms}; null from a node of protocol 11, which sends none.
     */
    public record JoinRequest(Contact joiner, long originRequestId, int hops, ClusterTerms terms)
            implements Message, Routed {
        public MessageType type() {
            return MessageType.JOIN_REQUEST;
        }

        public Id key() {
            return joiner.id();
        }

        public Contact origin() {
            return joiner;
        }

        public JoinRequest nextHop() {
            return new JoinRequest(joiner, originRequestId, hops + 1, terms);
        }
    }

    /** Contacts a path node gives a joiner; {@code fromRoot} marks the last one, whose leaf set the joiner adopts. */
    public record JoinInfo(List<Contact> contacts, boolean fromRoot) implements Message {
        public JoinInfo {
            contacts = List.copyOf(contacts);
        }

        public MessageType type() {
            return MessageType.JOIN_INFO;
        }
    }

    /** Periodic leaf-set exchange (also a join announcement); answered with the receiver's leaf set. */
    public record LeafExchange(List<Contact> leafSet) implements Message {
        public LeafExchange {
            leafSet = List.copyOf(leafSet);
        }

        public MessageType type() {
            return MessageType.LEAF_EXCHANGE;
        }
    }

    public record LeafExchangeReply(List<Contact> leafSet) implements Message {
        public LeafExchangeReply {
            leafSet = List.copyOf(leafSet);
        }

        public MessageType type() {
            return MessageType.LEAF_EXCHANGE_REPLY;
        }
    }

    /**
     * The sender is leaving gracefully and has handed off its records: drop it from the leaf set and routing table
     * and repair at once, without waiting for a timeout. Not answered.
     */
    public record Leave() implements Message {
        public MessageType type() {
            return MessageType.LEAVE;
        }
    }
}
