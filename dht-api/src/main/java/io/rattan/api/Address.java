package io.rattan.api;

/** A host and TCP port where a node listens for peers, or a virtual address in the simulated world. */
public record Address(String host, int port) {

    public Address {
        if (host == null || host.isEmpty() || host.length() > 255) {
            throw new IllegalArgumentException("host must be 1..255 characters");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /**
     * Parses {@code host:port}; IPv6 hosts go in brackets, {@code [::1]:4000}. An unbracketed host with a colon
     * ({@code fe80::1:4000}) is refused: which colon ends the address is ambiguous.
     */
    public static Address parse(String hostPort) {
        if (hostPort == null) {
            throw new IllegalArgumentException("expected host:port");
        }
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw new IllegalArgumentException("expected host:port, got '" + hostPort + "'");
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
            if (host.indexOf(':') < 0) {
                throw new IllegalArgumentException("brackets are for IPv6 literals, got '" + hostPort + "'");
            }
        } else if (host.indexOf(':') >= 0 || host.indexOf('[') >= 0 || host.indexOf(']') >= 0) {
            throw new IllegalArgumentException("an IPv6 address goes in brackets, as in [fe80::1]:4000; got '"
                    + hostPort + "'");
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port in '" + hostPort + "'");
        }
        return new Address(host, port);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
