package io.rattan.core.net;

import io.rattan.api.Address;
import io.rattan.api.Id;

/**
 * A node as others reach it: its id, the address it listens on for peers, and the port of its binary client gateway
 * on the same host (0 when it serves no binary clients there, as in the simulator). Nodes pass contacts to each other
 * (leaf sets, joins, a get's holders), so the gateway port travels with them: that is how a one-hop client, which
 * learns replicas from the holders named in answers, finds the gateway of each.
 *
 * @param gatewayPort 1..65535, or 0 for none
 */
public record Contact(Id id, Address address, int gatewayPort) {

    /** Stands for "no binary gateway" in {@link #gatewayPort()}. */
    public static final int NO_GATEWAY = 0;

    public Contact {
        if (id == null || address == null) {
            throw new IllegalArgumentException("a contact needs an id and an address");
        }
        if (gatewayPort < 0 || gatewayPort > 65535) {
            throw new IllegalArgumentException("gateway port out of range: " + gatewayPort);
        }
    }

    /** A contact without a binary gateway. */
    public Contact(Id id, Address address) {
        this(id, address, NO_GATEWAY);
    }

    /** Whether the node names a binary client gateway. */
    public boolean hasGateway() {
        return gatewayPort != NO_GATEWAY;
    }

    /**
     * Where the node serves binary clients: its peer host, at its gateway port.
     *
     * @throws IllegalStateException if it names none ({@link #hasGateway()})
     */
    public Address gatewayAddress() {
        if (!hasGateway()) {
            throw new IllegalStateException(this + " names no binary gateway");
        }
        return new Address(address.host(), gatewayPort);
    }

    @Override
    public String toString() {
        return id.shortHex() + "@" + address;
    }
}
