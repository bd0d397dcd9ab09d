package io.rattan.core.codec;

/**
 * A frame that cannot be decoded, or a message that cannot be encoded because a field breaks a bound of the wire
 * protocol. On decode it means the peer sent a malformed frame: the connection should be closed.
 */
public class CodecException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CodecException(String message) {
        super(message);
    }

    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
