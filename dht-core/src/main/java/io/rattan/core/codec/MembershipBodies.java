package io.rattan.core.codec;

import io.rattan.core.msg.MembershipMessages.Challenge;
import io.rattan.core.msg.MembershipMessages.ChallengeAnswer;
import io.rattan.core.msg.MembershipMessages.ClusterTerms;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.msg.MembershipMessages.JoinRequest;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.LeafExchangeReply;
import io.rattan.core.msg.MembershipMessages.Leave;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.MembershipMessages.Welcome;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;

/**
 * The bodies of the membership messages: liveness (ping, pong, hop ack), the connection handshake (hello,
 * challenge, answer, welcome), join and leave, and the leaf-set exchange. They carry contacts and little else, and
 * change when the overlay's upkeep does, not when storage does; hence a class of their own.
 */
final class MembershipBodies implements BodyCodec {

    static final MembershipBodies INSTANCE = new MembershipBodies();
    // The first version whose JOIN_REQUEST names the joiner's terms.
    private static final int TERMS_SINCE = 12;
    // The first version whose CHALLENGE_ANSWER proves the answerer's id.
    private static final int PROOF_SINCE = 13;

    private MembershipBodies() {
    }

    @Override
    public void write(FrameWriter w, Message body) {
        switch (body.type()) {
            case PING, HOP_ACK, LEAVE, CHALLENGE, WELCOME -> {
            }
            case CHALLENGE_ANSWER -> {
                // Since 13: the answerer's proof of its id, none when it speaks 12; a frame of 12 carries none.
                if (w.version() >= PROOF_SINCE) {
                    w.proof(((ChallengeAnswer) body).proof());
                }
            }
            case HELLO -> w.nonNegativeI32(((Hello) body).version(), "version");
            case PONG -> {
                w.contacts(((Pong) body).suggestions(), "suggestions");
                w.nonNegativeI64(((Pong) body).senderMillis(), "senderMillis");
            }
            case JOIN_REQUEST -> {
                JoinRequest m = (JoinRequest) body;
                w.contact(m.joiner(), "joiner");
                w.i64(m.originRequestId());
                w.hops(m.hops());
                // Since 12: the joiner's terms, none when it is of 11; a frame of 11 carries none.
                if (w.version() >= TERMS_SINCE) {
                    writeTerms(w, m.terms());
                }
            }
            case JOIN_INFO -> {
                JoinInfo m = (JoinInfo) body;
                w.contacts(m.contacts(), "contacts");
                w.bool(m.fromRoot());
            }
            case LEAF_EXCHANGE -> w.contacts(((LeafExchange) body).leafSet(), "leafSet");
            case LEAF_EXCHANGE_REPLY -> w.contacts(((LeafExchangeReply) body).leafSet(), "leafSet");
            default -> throw BodyCodec.notInFamily(body.type(), MembershipBodies.class);
        }
    }

    @Override
    public Message read(FrameReader r, MessageType type) {
        return switch (type) {
            case PING -> new Ping();
            case PONG -> new Pong(r.contacts("suggestions"), r.nonNegativeI64("senderMillis"));
            case HOP_ACK -> new HopAck();
            case HELLO -> new Hello(r.nonNegativeI32("version"));
            case CHALLENGE -> new Challenge();
            case CHALLENGE_ANSWER -> new ChallengeAnswer(r.version() >= PROOF_SINCE ? r.proof() : null);
            case WELCOME -> new Welcome();
            case LEAVE -> new Leave();
            case JOIN_REQUEST -> new JoinRequest(r.contact("joiner"), r.i64("originRequestId"), r.hops(),
                    r.version() >= TERMS_SINCE ? readTerms(r) : null);
            case JOIN_INFO -> new JoinInfo(r.contacts("contacts"), r.bool("fromRoot"));
            case LEAF_EXCHANGE -> new LeafExchange(r.contacts("leafSet"));
            case LEAF_EXCHANGE_REPLY -> new LeafExchangeReply(r.contacts("leafSet"));
            default -> throw BodyCodec.notInFamily(type, MembershipBodies.class);
        };
    }

    /** A presence byte, then k, W, the largest value and the longest TTL. */
    private static void writeTerms(FrameWriter w, ClusterTerms t) {
        w.bool(t != null);
        if (t != null) {
            w.nonNegativeI32(t.replicas(), "replicas");
            w.nonNegativeI32(t.writeQuorum(), "writeQuorum");
            w.nonNegativeI32(t.valueBytesMax(), "valueBytesMax");
            w.nonNegativeI32(t.ttlSecondsMax(), "ttlSecondsMax");
        }
    }

    private static ClusterTerms readTerms(FrameReader r) {
        if (!r.bool("terms")) {
            return null;
        }
        return new ClusterTerms(r.nonNegativeI32("replicas"), r.nonNegativeI32("writeQuorum"),
                r.nonNegativeI32("valueBytesMax"), r.nonNegativeI32("ttlSecondsMax"));
    }
}
