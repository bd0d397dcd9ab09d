package io.rattan.core.msg;

import io.rattan.core.net.Contact;

/**
 * A message on the wire with its header.
 *
 * @param sender    the sending node, or null on the client protocol (clients are not nodes)
 * @param requestId the request this message is, or answers; replies echo the request's id
 * @param body      the message
 */
public record Envelope(Contact sender, long requestId, Message body) {

    public Envelope {
        if (body == null) {
            throw new IllegalArgumentException("an envelope needs a body");
        }
    }
}
