package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.net.Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FounderTest {

    private static final Address SELF = new Address("10.0.0.1", 4000);
    private static final List<Address> PEERS = List.of(new Address("rattan-peers", 4000));

    private final List<String> lookedUp = new ArrayList<>();

    @Test
    void onlyTheNamedHostFounds() throws Exception {
        assertThat(Founder.founds("rattan-0", "rattan-1", PEERS, SELF, answers(), 0)).isFalse();
        assertThat(Founder.founds(null, "rattan-0", PEERS, SELF, answers(), 0)).isFalse();
        assertThat(lookedUp).isEmpty();
    }

    @Test
    void theFounderFoundsWhenTheNameListsNobodyOrOnlyItself() throws Exception {
        assertThat(Founder.founds("rattan-0", "rattan-0", PEERS, SELF, answers(), 0)).isTrue();
        assertThat(lookedUp).hasSize(Founder.CHECKS);
        lookedUp.clear();
        assertThat(Founder.founds("rattan-0", "rattan-0", PEERS, SELF, answers("10.0.0.1"), 0)).isTrue();
        assertThat(lookedUp).hasSize(Founder.CHECKS);
    }

    @Test
    void theFounderJoinsWhenAnyCheckListsAnotherNode() throws Exception {
        assertThat(Founder.founds("rattan-0", "rattan-0", PEERS, SELF, answers("10.0.0.1", "10.0.0.2"), 0)).isFalse();
        assertThat(lookedUp).hasSize(1);
        lookedUp.clear();
        BootstrapResolver.Lookup late = host -> {
            lookedUp.add(host);
            if (lookedUp.size() < Founder.CHECKS) {
                throw new UnknownHostException(host);
            }
            return List.of(InetAddress.getByName("10.0.0.3"));
        };
        assertThat(Founder.founds("rattan-0", "rattan-0", PEERS, SELF, late, 0)).isFalse();
    }

    @Test
    void aHostNameComesFromTheEnvironmentFirst() {
        assertThat(Founder.hostName(Map.of("HOSTNAME", " rattan-2 "))).isEqualTo("rattan-2");
        assertThat(Founder.hostName(Map.of())).isNotBlank();
    }

    private BootstrapResolver.Lookup answers(String... ips) {
        return host -> {
            lookedUp.add(host);
            if (ips.length == 0) {
                throw new UnknownHostException(host);
            }
            List<InetAddress> out = new ArrayList<>();
            for (String ip : ips) {
                out.add(InetAddress.getByName(ip));
            }
            return out;
        };
    }
}
