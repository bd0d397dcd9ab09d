package io.rattan.node.gateway.http;

import io.rattan.node.tls.BearerTokens;
import io.rattan.node.tls.ServerTls;

/**
 * How clients reach an HTTP listener: over TLS or not, with a bearer token or not. {@code /health} and
 * {@code /ready} never need a token, so that probes need no secret.
 *
 * @param tls    TLS on the listener, or null for plaintext
 * @param tokens the tokens every other request must carry one of (else 401), or null for none
 */
public record HttpAccess(ServerTls tls, BearerTokens tokens) {

    /** Plaintext, no tokens: the admin port, and a node told nothing else. */
    public static final HttpAccess OPEN = new HttpAccess(null, null);

    /** Whether a request for {@code uri} is served without a token. */
    static boolean isProbe(String uri) {
        String path = uri.indexOf('?') >= 0 ? uri.substring(0, uri.indexOf('?')) : uri;
        return path.equals("/health") || path.equals("/ready");
    }
}
