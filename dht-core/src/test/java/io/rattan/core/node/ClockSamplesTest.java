package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import org.junit.jupiter.api.Test;

/** A clock sample counts once per host, ids on the node's own host once each. */
class ClockSamplesTest {

    private static final Contact SELF = contact("self", "10.0.0.1", 4000);

    private static Contact contact(String name, String host, int port) {
        return new Contact(Id.ofName(name), new Address(host, port));
    }

    @Test
    void idsOnOneOtherHostAreOneSourceHoweverSpelled() {
        assertThat(ClockSamples.source(contact("a", "10.0.0.2", 4000), SELF))
                .isEqualTo(ClockSamples.source(contact("b", "10.0.0.2", 4001), SELF))
                .isNotEqualTo(ClockSamples.source(contact("c", "10.0.0.3", 4000), SELF));
        assertThat(ClockSamples.source(contact("a", "2001:db8::1", 4000), SELF))
                .as("one IPv6 /64").isEqualTo(ClockSamples.source(contact("b", "2001:db8:0:0:ffff::2", 4001), SELF));
    }

    @Test
    void idsOnTheNodesOwnHostAreOneSourceEach() {
        assertThat(ClockSamples.source(contact("a", "10.0.0.1", 4001), SELF))
                .isNotEqualTo(ClockSamples.source(contact("b", "10.0.0.1", 4002), SELF));
    }
}
