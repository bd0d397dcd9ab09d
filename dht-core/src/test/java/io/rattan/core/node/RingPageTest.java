package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientRing;
import io.rattan.core.msg.ClientMessages.RingReply;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RingPageTest {

    private static Contact node(int i, int gatewayPort) {
        return new Contact(Id.ofName("node-" + i), new Address("10.0.0." + i, 4000), gatewayPort);
    }

    @Test
    void pagesWalkTheKnownNodesOnceInIdOrderWithoutThoseLackingAGateway() {
        List<Contact> known = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            known.add(node(i, 4001));
        }
        known.add(known.get(3));
        known.add(node(9, Contact.NO_GATEWAY));
        List<Contact> walked = new ArrayList<>();
        Bytes mark = Bytes.EMPTY;
        int pages = 0;
        do {
            RingReply page = RingPage.answer(new ClientRing(mark, 2), known, 3);
            assertThat(page.nodes()).hasSizeLessThanOrEqualTo(2);
            assertThat(page.replicas()).isEqualTo(3);
            walked.addAll(page.nodes());
            mark = page.placemark();
            pages++;
        } while (!mark.isEmpty());
        assertThat(pages).isEqualTo(4);
        assertThat(walked).hasSize(7).doesNotContain(node(9, Contact.NO_GATEWAY))
                .isSortedAccordingTo((a, b) -> a.id().compareTo(b.id()));
    }

    @Test
    void aPageIsBoundedWhateverTheClientAsks() {
        List<Contact> known = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            known.add(node(i, 4001));
        }
        assertThat(RingPage.answer(new ClientRing(Bytes.EMPTY, 0), known, 3).nodes()).hasSize(RingPage.NODES_MAX);
        assertThat(RingPage.answer(new ClientRing(Bytes.EMPTY, 1000), known, 3).nodes()).hasSize(RingPage.NODES_MAX);
        RingReply last = RingPage.answer(new ClientRing(Bytes.wrap(Id.MAX.toBytes()), 5), known, 3);
        assertThat(last.nodes()).isEmpty();
        assertThat(last.placemark().isEmpty()).isTrue();
    }

    @Test
    void theValidatorRefusesANegativeMaxAndAPlacemarkThatIsNoNodeId() {
        NodeConfig config = NodeConfig.defaults();
        assertThat(ClientRequestValidator.check(new ClientRing(Bytes.EMPTY, 0), config)).isEmpty();
        assertThat(ClientRequestValidator.check(new ClientRing(Bytes.wrap(new byte[20]), 5), config)).isEmpty();
        assertThat(ClientRequestValidator.check(new ClientRing(Bytes.EMPTY, -1), config))
                .hasValueSatisfying(e -> assertThat(e.status()).isEqualTo(Status.BAD_REQUEST));
        assertThat(ClientRequestValidator.check(new ClientRing(Bytes.wrap(new byte[32]), 5), config))
                .hasValueSatisfying(e -> assertThat(e.detail()).contains("20-byte node id"));
    }
}
