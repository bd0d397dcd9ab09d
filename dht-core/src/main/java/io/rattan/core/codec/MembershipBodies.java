package io.rattan.core.codec;

import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.Messages.Challenge;
import io.rattan.core.msg.Messages.ChallengeAnswer;
import io.rattan.core.msg.Messages.Hello;
import io.rattan.core.msg.Messages.HopAck;
import io.rattan.core.msg.Messages.JoinInfo;
import io.rattan.core.msg.Messages.JoinRequest;
import io.rattan.core.msg.Messages.LeafExchange;
import io.rattan.core.msg.Messages.LeafExchangeReply;
import io.rattan.core.msg.Messages.Leave;
import io.rattan.core.msg.Messages.Ping;
import io.rattan.core.msg.Messages.Pong;
import io.rattan.core.msg.Messages.Welcome;

/**
 * The bodies of the membership messages: liveness (ping, pong, hop ack), the connection handshake (hello,
 * challenge, answer, welcome), join and leave, and the leaf-set exchange. They carry contacts and little else, and
 * change when the overlay's upkeep does, not when storage does; hence a class of their own.
 */
final class MembershipBodies implements BodyCodec {

    static final MembershipBodies INSTANCE = new MembershipBodies();

    private MembershipBodies() {
    }

    @Override
    public void write(FrameWriter w, Message body) {
        switch (body.type()) {
            case PING, HOP_ACK, LEAVE, CHALLENGE, CHALLENGE_ANSWER, WELCOME -> {
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
            case CHALLENGE_ANSWER -> new ChallengeAnswer();
            case WELCOME -> new Welcome();
            case LEAVE -> new Leave();
            case JOIN_REQUEST -> new JoinRequest(r.contact("joiner"), r.i64("originRequestId"), r.hops());
            case JOIN_INFO -> new JoinInfo(r.contacts("contacts"), r.bool("fromRoot"));
            case LEAF_EXCHANGE -> new LeafExchange(r.contacts("leafSet"));
            case LEAF_EXCHANGE_REPLY -> new LeafExchangeReply(r.contacts("leafSet"));
            default -> throw BodyCodec.notInFamily(type, MembershipBodies.class);
        };
    }
}
