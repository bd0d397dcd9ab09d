/**
 * The Netty codec of the binary protocols, {@link io.rattan.client.netty.EnvelopeCodec}: the client's connections
 * and the node's peer and client ports frame envelopes with it.
 */
package io.rattan.client.netty;
