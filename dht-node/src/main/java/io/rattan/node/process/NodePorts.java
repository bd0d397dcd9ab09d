package io.rattan.node.process;

import io.rattan.api.Address;
import java.util.Objects;

/**
 * Where one node process listens: the host it binds and advertises, and its peer, binary-gateway and HTTP ports.
 *
 * @param host    the address the node binds and advertises
 * @param peer    the peer protocol's port
 * @param gateway the binary client gateway's port
 * @param http    the HTTP/JSON gateway's port, which also serves {@code /ready} and {@code /metrics}
 */
public record NodePorts(String host, int peer, int gateway, int http) {

    public NodePorts {
        Objects.requireNonNull(host, "host");
    }

    public Address peerAddress() {
        return new Address(host, peer);
    }

    public Address gatewayAddress() {
        return new Address(host, gateway);
    }

    public Address httpAddress() {
        return new Address(host, http);
    }
}
