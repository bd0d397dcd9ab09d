/**
 * The client-facing gateways of a node, side by side: the binary RPC ({@link io.rattan.node.gateway.binary}) and the
 * HTTP/JSON API ({@link io.rattan.node.gateway.http}). Both reach the node through one door,
 * {@link io.rattan.node.gateway.GatewayBackend}.
 */
package io.rattan.node.gateway;
