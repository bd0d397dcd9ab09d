package io.rattan.core.codec;

import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;

/**
 * Writes and reads the bodies of one family of messages: the fields after the frame header, in declaration order.
 * {@link MessageCodec} writes the header and picks the family by type; each family is its own class so that the
 * encoding of, say, replica repair can be read and changed without scrolling past the client gateway's.
 */
interface BodyCodec {

    /**
     * Writes {@code body}'s fields, or only counts them when {@code w} has no buffer.
     *
     * @throws CodecException if a field is null or breaks a bound
     */
    void write(FrameWriter w, Message body);

    /**
     * Reads the fields of a {@code type} body. Java evaluates arguments left to right, so each constructor call in an
     * implementation reads its fields in wire order.
     *
     * @throws CodecException if the bytes are malformed
     */
    Message read(FrameReader r, MessageType type);

    /** What a family throws for a type the dispatch in {@link MessageCodec} never sends it: a bug, not bad input. */
    static IllegalStateException notInFamily(MessageType type, Class<?> family) {
        return new IllegalStateException(type + " is not encoded by " + family.getSimpleName());
    }
}
