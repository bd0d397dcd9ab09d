/**
 * The limits a node applies to anyone who can reach its ports: request rates per source, storage shares per client,
 * connection bounds and timeouts. The Netty handlers that enforce them live in {@code netty} and the gateways.
 */
package io.rattan.node.limits;
