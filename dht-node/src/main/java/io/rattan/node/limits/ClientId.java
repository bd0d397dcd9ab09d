package io.rattan.node.limits;

import java.net.InetAddress;

/**
 * Whom a gateway counts a request's rate and a put's storage share against: the client's bearer token, by the name
 * the token file gives it, where the HTTP gateway requires tokens; else its TLS client certificate, where the client
 * ports require one; else the connection's source IP.
 *
 * @param name how refusals and logs name the client: an IP address, {@code token NAME} (never the token itself) or
 *             {@code cert NAME}
 */
public record ClientId(String name) {

    /** The client a source IP stands for. */
    public static ClientId of(InetAddress ip) {
        return new ClientId(ip.getHostAddress());
    }

    /** The client a TLS client certificate stands for, by its subject's common name. */
    public static ClientId certificate(String commonName) {
        return new ClientId("cert " + commonName);
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
