/**
 * Client-side get strategies, pure logic on the {@code env} interfaces: used by {@code dht-client} over real
 * sockets and by the simulator's clients in virtual time. {@link io.rattan.core.client.GetRace} sends copies of a get
 * through several gateways (all at once, or one more after a {@link io.rattan.core.client.HedgeThreshold});
 * {@link io.rattan.api.GetOptions} says how.
 */
package io.rattan.core.client;
