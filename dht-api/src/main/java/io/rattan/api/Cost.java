package io.rattan.api;

/**
 * What a get cost: messages, and bytes as encoded plus {@link #HEADER_BYTES} per message.
 *
 * <p>In a {@code RequestMessages.GetReply} this is the cost the nodes on the get's path counted in band: each forward and
 * its hop ack, each forward that timed out, each iterative query and its reply, and the final reply. It cannot
 * include what no node on the path sees: probes a timeout sets off, acks and replies that arrive after their request
 * was given up, copies a client sent to other gateways. The simulator counts those too, from the network.
 */
public record Cost(int messages, long bytes) {

    /**
     * Per-message header allowance: IPv4 (20 B) and TCP (20 B) headers, and our 4-byte frame length. TCP's own
     * acknowledgements are not counted: they are delayed and ride on replies; our hop acks are counted as messages.
     */
    public static final int HEADER_BYTES = 44;

    public static final Cost ZERO = new Cost(0, 0);

    public Cost {
        if (messages < 0 || bytes < 0) {
            throw new IllegalArgumentException("cost must be >= 0, got " + messages + " messages, " + bytes + " B");
        }
    }

    /** One message of {@code encodedBytes} on the wire. */
    public static Cost message(int encodedBytes) {
        return new Cost(1, encodedBytes + (long) HEADER_BYTES);
    }

    public Cost plus(Cost o) {
        return new Cost(messages + o.messages, bytes + o.bytes);
    }
}
