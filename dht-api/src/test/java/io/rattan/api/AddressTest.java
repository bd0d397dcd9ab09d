package io.rattan.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AddressTest {

    @Test
    void parsesIpv4AndBracketedIpv6() {
        assertThat(Address.parse("10.0.0.1:4000")).isEqualTo(new Address("10.0.0.1", 4000));
        assertThat(Address.parse("[fe80::1]:4000")).isEqualTo(new Address("fe80::1", 4000));
        assertThat(Address.parse("[fe80::1]:4000").toString()).isEqualTo("[fe80::1]:4000");
    }

    @Test
    void aBareIpv6LiteralIsAClearErrorNotPort4000() {
        assertThatThrownBy(() -> Address.parse("fe80::1:4000")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("goes in brackets");
        assertThatThrownBy(() -> Address.parse("[10.0.0.1]:4000")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Address.parse("10.0.0.1")).isInstanceOf(IllegalArgumentException.class);
    }
}
