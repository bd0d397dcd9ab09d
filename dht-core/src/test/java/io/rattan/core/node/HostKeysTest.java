package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The key the per-IP bound counts by: one per IPv4 address, one per IPv6 /64, whatever the spelling. */
class HostKeysTest {

    @Test
    void anIpv4AddressIsItsOwnKeyHoweverItIsWritten() {
        assertThat(HostKeys.of("10.0.0.9")).isEqualTo("10.0.0.9");
        assertThat(HostKeys.of("010.000.000.009")).isEqualTo("10.0.0.9");
        assertThat(HostKeys.of("10.0.0.10")).isNotEqualTo(HostKeys.of("10.0.0.9"));
    }

    @Test
    void ipv6AddressesOfOneSlash64ShareAKey() {
        String a = HostKeys.of("2001:db8:1:2::1");
        assertThat(a).isEqualTo("2001:db8:1:2::/64");
        assertThat(HostKeys.of("2001:0db8:0001:0002:ffff:ffff:ffff:fffe")).isEqualTo(a);
        assertThat(HostKeys.of("[2001:DB8:1:2::abcd]")).isEqualTo(a);
        assertThat(HostKeys.of("2001:db8:1:2::1%eth0")).isEqualTo(a);
        assertThat(HostKeys.of("2001:db8:1:3::1")).isNotEqualTo(a);
        assertThat(HostKeys.of("::1")).isEqualTo("0:0:0:0::/64");
        assertThat(HostKeys.of("fe80::1:2:3.4.5.6")).isEqualTo("fe80:0:0:0::/64");
    }

    @Test
    void anIpv4MappedIpv6AddressKeysAsItsIpv4Address() {
        assertThat(HostKeys.of("::ffff:10.0.0.9")).isEqualTo("10.0.0.9");
        assertThat(HostKeys.of("::ffff:a00:9")).isEqualTo("10.0.0.9");
    }

    @Test
    void aHostThatIsNoIpLiteralIsItsOwnKey() {
        assertThat(HostKeys.of("node17")).isEqualTo("node17");
        assertThat(HostKeys.of("node18")).isNotEqualTo(HostKeys.of("node17"));
        assertThat(HostKeys.of("1.2.3")).isEqualTo("1.2.3");
        assertThat(HostKeys.of("1.2.3.256")).isEqualTo("1.2.3.256");
        assertThat(HostKeys.of("1::2::3")).isEqualTo("1::2::3");
        assertThat(HostKeys.of("1:2:3:4:5:6:7:8:9")).isEqualTo("1:2:3:4:5:6:7:8:9");
    }
}
