package io.rattan.node;

import com.google.common.net.InetAddresses;
import io.rattan.node.gateway.http.HttpSurfaces;

/**
 * Where a node serves its operator endpoints ({@code /metrics}, {@code /node}, {@code /admin/...}): on the HTTP
 * gateway as well, as {@code httpServes} says, and on an admin port of their own if {@code adminPort} is not
 * {@link #NO_PORT}. The admin port serves every operator endpoint, {@code /health} and {@code /ready}, and no key API;
 * it listens on loopback unless told otherwise, so that only the host (or a pod's sidecar) reaches it.
 *
 * @param adminBind  the IP address the admin port listens on
 * @param adminPort  the admin port; 0 picks a free one, {@link #NO_PORT} has none
 * @param httpServes what the HTTP gateway serves besides the key API and the probes
 */
public record OperatorEndpoints(String adminBind, int adminPort, HttpSurfaces httpServes) {

    public static final int NO_PORT = -1;
    /** As before there was a choice: no admin port, and the HTTP gateway serves every endpoint. */
    public static final OperatorEndpoints DEFAULT = new OperatorEndpoints(NodeOptions.LOOPBACK, NO_PORT,
            HttpSurfaces.ALL);

    public OperatorEndpoints {
        if (adminBind == null || !InetAddresses.isInetAddress(adminBind)) {
            throw new IllegalArgumentException("admin bind address '" + adminBind + "' is not an IP literal");
        }
        if (adminPort < NO_PORT || adminPort > 65535) {
            throw new IllegalArgumentException("admin port must be 0..65535, got " + adminPort);
        }
        if (httpServes == null || !httpServes.keys()) {
            throw new IllegalArgumentException("the HTTP gateway serves the key API");
        }
    }

    /** Whether there is an admin port. */
    public boolean hasAdminPort() {
        return adminPort != NO_PORT;
    }
}
