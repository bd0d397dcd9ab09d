/**
 * The Netty codec of the binary protocols, {@link io.rattan.client.netty.EnvelopeCodec}: the client's connections
 * and the node's peer and client ports frame envelopes with it. Not part of the client's API: it names
 * {@code dht-core}'s message types, may change in any release, and is left out of the client's Javadoc.
 */
package io.rattan.client.netty;
