/**
 * Peer transport only: the node's outbound connections to other nodes ({@link io.rattan.node.transport.NettyTransport},
 * optionally behind a {@link io.rattan.node.transport.DelayedTransport} that holds each frame for its destination's
 * {@link io.rattan.node.transport.PeerDelays}: a fixed delay, or an emulated wide area,
 * {@link io.rattan.node.transport.WanDelays}) and the server that accepts theirs
 * ({@link io.rattan.node.transport.PeerServer}). Clients come in through {@link io.rattan.node.gateway}.
 */
package io.rattan.node.transport;
