package io.rattan.core.msg;

/** Fixed wire tags, one per message record. Tags are never reused; new messages take new tags. */
public enum MessageType {
    PING(1),
    PONG(2),
    HOP_ACK(3),
    HELLO(4),
    CHALLENGE(5),
    CHALLENGE_ANSWER(6),
    WELCOME(7),
    JOIN_REQUEST(10),
    JOIN_INFO(11),
    LEAF_EXCHANGE(12),
    LEAF_EXCHANGE_REPLY(13),
    LEAVE(14),
    PUT_REQUEST(20),
    GET_REQUEST(21),
    REMOVE_REQUEST(22),
    ITERATIVE_GET(23),
    PUT_REPLY(30),
    GET_REPLY(31),
    REMOVE_REPLY(32),
    ITERATIVE_GET_REPLY(33),
    RING_REPLY(34),
    WATCH_EVENT(35),
    PUT_ACK(36),
    REMOVE_ACK(37),
    STORE_REPLICAS(40),
    STORE_ACK(41),
    REMOVE_REPLICA(42),
    REMOVE_REPLICA_REPLY(43),
    DIGEST(44),
    DIGEST_WANT(45),
    RANGE_DIGEST(46),
    RANGE_DIGEST_REPLY(47),
    REPLICA_READ(48),
    REPLICA_READ_REPLY(49),
    WATCH(50),
    WATCH_ACK(51),
    WATCH_CHANGE(52),
    CLIENT_PUT(60),
    CLIENT_GET(61),
    CLIENT_REMOVE(62),
    CLIENT_RING(63),
    CLIENT_WATCH(64),
    CLIENT_UNWATCH(65),
    ERROR_REPLY(70),
    IN_NAMESPACE(80),
    NAMESPACE_DEFS(81),
    NAMESPACE_QUERY(82);

    private static final MessageType[] BY_TAG = new MessageType[128];

    static {
        for (MessageType t : values()) {
            BY_TAG[t.tag] = t;
        }
    }

    private final int tag;

    MessageType(int tag) {
        this.tag = tag;
    }

    public int tag() {
        return tag;
    }

    /** The type for a wire tag, or null when the tag is unknown. */
    public static MessageType fromTag(int tag) {
        return tag >= 0 && tag < BY_TAG.length ? BY_TAG[tag] : null;
    }
}
