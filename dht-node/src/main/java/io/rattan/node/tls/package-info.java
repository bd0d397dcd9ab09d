/**
 * Mutual TLS between a private cluster's nodes: the cluster's certificate authority and the certificates it issues
 * for node keys ({@link io.rattan.node.tls.ClusterCa}, {@code rattan certs}), and what a running node does with them
 * ({@link io.rattan.node.tls.PeerTls}): TLS on every peer connection, the peer's id read off its certificate, a
 * revocation list and certificates reloaded without a restart. Also the HTTP gateway's TLS
 * ({@link io.rattan.node.tls.ServerTls}) and its clients' bearer tokens ({@link io.rattan.node.tls.BearerTokens}).
 */
package io.rattan.node.tls;
