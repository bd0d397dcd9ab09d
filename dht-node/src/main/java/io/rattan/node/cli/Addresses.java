package io.rattan.node.cli;

import com.google.common.net.HostAndPort;
import io.rattan.api.Address;
import java.net.InetSocketAddress;

/** Socket addresses as the user typed them ({@code host:port}), not as {@link InetSocketAddress#toString} has it. */
final class Addresses {

    private Addresses() {
    }

    static Address of(InetSocketAddress a) {
        return new Address(a.getHostString(), a.getPort());
    }

    /** Parses {@code host:port} with Guava's {@link HostAndPort}: IPv6 literals in brackets, a port required. */
    static Address parse(String value) {
        HostAndPort hp = HostAndPort.fromString(value.trim()).requireBracketsForIPv6();
        if (!hp.hasPort()) {
            throw new IllegalArgumentException("no port");
        }
        if (hp.getHost().isEmpty()) {
            throw new IllegalArgumentException("no host");
        }
        return new Address(hp.getHost(), hp.getPort());
    }
}
