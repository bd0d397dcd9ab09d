package io.rattan.core.virtual;

import io.rattan.api.Address;

/**
 * How virtual-world processes are addressed: process {@code i} of a kind listens at host {@code <kind><i>}, port
 * {@code 1 + i mod 65535}. The host carries the index because a port (16 bits on the wire) cannot number more than
 * 65,535 nodes; the port is kept as it always was below that ({@code i + 1}) and only ever wraps above it.
 */
public final class VirtualAddresses {

    private static final int PORTS = 65_535;

    private VirtualAddresses() {
    }

    /** The address of process {@code index} of the kind {@code prefix} (letters only, e.g. {@code "node"}). */
    public static Address of(String prefix, int index) {
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, got " + index);
        }
        return new Address(prefix + index, 1 + index % PORTS);
    }

    /**
     * The address of process {@code index} at {@code host}, which must end in the index in decimal (as {@link #index}
     * reads it): {@code node17}, or an IPv6 literal such as {@code fd00::17}, so that several processes may share one
     * /64 as one host's many addresses do.
     */
    public static Address at(String host, int index) {
        if (index < 0 || index(new Address(host, 1)) != index) {
            throw new IllegalArgumentException("host " + host + " must end in its index " + index);
        }
        return new Address(host, 1 + index % PORTS);
    }

    /** The index of a virtual address: the decimal number that ends its host; -1 when the host has none. */
    public static int index(Address address) {
        String host = address.host();
        int end = host.length();
        int start = end;
        while (start > 0 && host.charAt(start - 1) >= '0' && host.charAt(start - 1) <= '9') {
            start--;
        }
        // More than 9 digits cannot be a node index of this world (and would overflow an int).
        if (start == end || end - start > 9) {
            return -1;
        }
        int index = 0;
        for (int i = start; i < end; i++) {
            index = index * 10 + (host.charAt(i) - '0');
        }
        return index;
    }
}
