/**
 * The Netty plumbing the peer transport and the gateways are built from: event loops of the right kind
 * ({@link io.rattan.node.netty.EventLoops}), the one server bootstrap ({@link io.rattan.node.netty.TcpServer}), the
 * framing ({@link io.rattan.node.netty.Frames}) and codec ({@link io.rattan.node.netty.EnvelopeCodec}) of the binary
 * protocols, and what they report for metrics ({@link io.rattan.node.netty.TransportListener}). Nothing here knows
 * the node or a protocol's meaning.
 */
package io.rattan.node.netty;
