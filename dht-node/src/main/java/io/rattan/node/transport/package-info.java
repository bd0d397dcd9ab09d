/**
 * Peer transport only: the node's outbound connections to other nodes ({@link io.rattan.node.transport.NettyTransport},
 * optionally behind a {@link io.rattan.node.transport.DelayedTransport}) and the server that accepts theirs
 * ({@link io.rattan.node.transport.PeerServer}). Clients come in through {@link io.rattan.node.gateway}.
 */
package io.rattan.node.transport;
