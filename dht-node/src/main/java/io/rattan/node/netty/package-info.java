/**
 * The Netty plumbing the peer transport and the gateways are built from: event loops of the right kind
 * ({@link io.rattan.node.netty.EventLoops}), the one server bootstrap ({@link io.rattan.node.netty.TcpServer}), the
 * pipeline of the binary protocols, framing → envelope codec (dht-client's) → a protocol's thin handler
 * ({@link io.rattan.node.netty.EnvelopeInitializer}), and what they report for metrics
 * ({@link io.rattan.node.netty.TransportListener}). Nothing here knows the node or what a message means.
 */
package io.rattan.node.netty;
