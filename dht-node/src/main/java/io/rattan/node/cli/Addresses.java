package io.rattan.node.cli;

import io.rattan.core.net.Address;
import java.net.InetSocketAddress;

/** Socket addresses as the user typed them ({@code host:port}), not as {@link InetSocketAddress#toString} has it. */
final class Addresses {

    private Addresses() {
    }

    static Address of(InetSocketAddress a) {
        return new Address(a.getHostString(), a.getPort());
    }
}
