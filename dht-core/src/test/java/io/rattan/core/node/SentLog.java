package io.rattan.core.node;

import io.rattan.api.Address;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import java.util.ArrayList;
import java.util.List;

/** The transport of a node built from its parts: every message it sends, recorded in order for the test to read. */
final class SentLog implements Transport {

    record Sent(Address to, Envelope envelope) {
    }

    private final List<Sent> sent = new ArrayList<>();

    @Override
    public void send(Address to, Envelope envelope) {
        sent.add(new Sent(to, envelope));
    }

    /** Everything sent so far, in order; the live list, which a test may clear. */
    List<Sent> all() {
        return sent;
    }

    /** The messages whose body is a {@code type}, in the order sent. */
    List<Sent> sent(Class<?> type) {
        return sent.stream().filter(s -> type.isInstance(s.envelope().body())).toList();
    }

    /** The messages whose body is a {@code type} sent to {@code to}'s address, in the order sent. */
    List<Sent> sentTo(Contact to, Class<?> type) {
        return sent.stream().filter(s -> s.to().equals(to.address()) && type.isInstance(s.envelope().body()))
                .toList();
    }
}
