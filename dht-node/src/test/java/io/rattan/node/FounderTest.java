package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.node.Founder.Decision;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FounderTest {

    private static final Address SELF = new Address("10.0.0.1", 4000);
    private static final List<Address> PEERS = List.of(new Address("rattan-peers", 4000));

    private final List<String> lookedUp = new ArrayList<>();

    @Test
    void onlyTheNamedHostDecides() throws Exception {
        assertThat(Founder.decide("rattan-0", "rattan-1", PEERS, SELF, answers(), 0)).isEqualTo(Decision.JOIN);
        assertThat(lookedUp).isEmpty();
    }

    @Test
    void theFounderFoundsOnlyWhenTheNameListsItselfAloneEveryTime() throws Exception {
        assertThat(Founder.decide("rattan-0", "rattan-0", PEERS, SELF, answers("10.0.0.1"), 0))
                .isEqualTo(Decision.FOUND);
        assertThat(lookedUp).hasSize(Founder.CHECKS);
    }

    @Test
    void aNameThatDoesNotResolveOrListsNobodyIsLookedUpAgainNotTakenForAlone() throws Exception {
        List<List<String>> script = List.of(List.of(), List.of("10.0.0.1"), List.of(), List.of("10.0.0.1"),
                List.of("10.0.0.1"), List.of("10.0.0.1"));
        BootstrapResolver.Lookup lookup = host -> {
            List<String> ips = script.get(lookedUp.size());
            lookedUp.add(host);
            if (ips.isEmpty()) {
                throw new UnknownHostException(host);
            }
            return List.of(InetAddress.getByName(ips.get(0)));
        };
        assertThat(Founder.decide("rattan-0", "rattan-0", PEERS, SELF, lookup, 0)).isEqualTo(Decision.FOUND);
        assertThat(lookedUp).as("three looks in a row listing this node alone").hasSize(script.size());
    }

    @Test
    void theFounderJoinsWhenTheNameListsAnotherNode() throws Exception {
        assertThat(Founder.decide("rattan-0", "rattan-0", PEERS, SELF, answers("10.0.0.1", "10.0.0.2"), 0))
                .isEqualTo(Decision.JOIN_OR_FOUND);
        assertThat(lookedUp).hasSize(1);
    }

    @Test
    void aFounderThatJoinedOthersFoundsOnceTheNameListsItAloneUnlessItJoinedFirst() throws Exception {
        AtomicInteger founded = new AtomicInteger();
        Founder.foundWhenAlone(PEERS, SELF, () -> false, founded::incrementAndGet, answers("10.0.0.1"), 0);
        assertThat(founded.get()).isEqualTo(1);
        assertThat(lookedUp).hasSize(Founder.CHECKS);

        lookedUp.clear();
        Founder.foundWhenAlone(PEERS, SELF, () -> lookedUp.size() >= 2, founded::incrementAndGet, answers("10.0.0.1"),
                0);
        assertThat(founded.get()).as("joined before the third look").isEqualTo(1);
    }

    @Test
    void anAdvertisedAddressInAnotherFormIsStillThisNode() throws Exception {
        Address v6 = new Address("FD00:0::1", 4000);
        assertThat(Founder.decide("rattan-0", "rattan-0", PEERS, v6, answers("fd00::1"), 0)).isEqualTo(Decision.FOUND);
    }

    @Test
    void aHostNameComesFromTheEnvironmentFirst() {
        assertThat(Founder.hostName(Map.of("HOSTNAME", " rattan-2 "))).isEqualTo("rattan-2");
        assertThat(Founder.hostName(Map.of())).isNotBlank();
    }

    private BootstrapResolver.Lookup answers(String... ips) {
        return host -> {
            lookedUp.add(host);
            List<InetAddress> out = new ArrayList<>();
            for (String ip : ips) {
                out.add(InetAddress.getByName(ip));
            }
            return out;
        };
    }
}
