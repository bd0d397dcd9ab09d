package io.rattan.node.gateway.http;

import io.rattan.api.RoutingMode;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.gateway.GatewayBackend;

/**
 * The namespace a key request is in, with the limits it is checked against before it leaves the gateway: the node's
 * own for {@value NamespaceDefinition#DEFAULT} ({@code /v1/keys}), the namespace's k, W, TTL and value size for
 * {@code /v1/namespaces/{ns}/keys}.
 *
 * @param namespace the namespace's name
 * @param config    the node's config with the namespace's replicas and limits
 * @param routing   how a get that names no routing routes
 */
record Scope(String namespace, NodeConfig config, RoutingMode routing) {

    /** The node's own namespace. */
    static Scope ofDefault(NodeConfig node) {
        return new Scope(NamespaceDefinition.DEFAULT, node, RoutingMode.DEFAULT);
    }

    /** Namespace {@code d} on a node of {@code node}'s settings: the limits the node itself serves it with. */
    static Scope of(NamespaceDefinition d, NodeConfig node) {
        // As the core opens a namespace (Namespaces.open), so that the gateway refuses what the node would.
        return new Scope(d.name(), node.withReplicas(d.replicas(), d.writeQuorum()).withLimits(d.valueBytesMax(),
                d.ttlSecondsMax(), node.pageValuesMax(), Math.max(node.pageBytesMax(), d.valueBytesMax())), d.routing());
    }

    /** {@code clientRequest} as the node takes it in this namespace. */
    Message wrap(Message clientRequest) {
        return GatewayBackend.inNamespace(namespace, clientRequest);
    }

    /** The path the keys of this namespace live under, with its trailing slash. */
    String keysPath() {
        return NamespaceDefinition.DEFAULT.equals(namespace) ? "/v1/keys/" : "/v1/namespaces/" + namespace + "/keys/";
    }

    /** Who sets the limits, for a refusal's detail. */
    String holder() {
        return NamespaceDefinition.DEFAULT.equals(namespace) ? "this node" : "namespace '" + namespace + "'";
    }
}
