package io.rattan.node.limits;

import java.net.InetAddress;

/**
 * Whom a gateway counts a request's rate and a put's storage share against: the client's bearer token, by the name
 * the token file gives it, where the gateway requires tokens; else the connection's source IP.
 *
 * @param name how refusals and logs name the client: an IP address, or {@code token NAME} (never the token itself)
 */
public record ClientId(String name) {

    /** The client a source IP stands for. */
    public static ClientId of(InetAddress ip) {
        return new ClientId(ip.getHostAddress());
    }

    /** The client a bearer token stands for, by its name in the token file. */
    public static ClientId token(String tokenName) {
        return new ClientId("token " + tokenName);
    }

    @Override
    public String toString() {
        return name;
    }
}
