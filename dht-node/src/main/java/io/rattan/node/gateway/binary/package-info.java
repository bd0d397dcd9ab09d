/**
 * The binary client RPC: {@link io.rattan.node.gateway.binary.ClientGatewayServer} accepts client connections whose
 * pipeline is framing → {@link io.rattan.client.netty.EnvelopeCodec} → a thin handler that hands each request to the
 * {@link io.rattan.node.gateway.GatewayBackend} and writes its reply.
 */
package io.rattan.node.gateway.binary;
