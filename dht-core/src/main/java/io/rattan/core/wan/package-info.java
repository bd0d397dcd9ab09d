/**
 * The wide area as data, shared by the simulator and the real node: a measured round-trip matrix between hosts
 * ({@link io.rattan.core.wan.LatencyMatrix}, with the 490-host PlanetLab matrix as a resource), a seeded placement
 * of nodes on its hosts ({@link io.rattan.core.wan.HostAssignment}), and the one-way delay of a message between two
 * hosts ({@link io.rattan.core.wan.OneWayDelay}). The simulator's {@code WideAreaLatencyModel} delays messages in
 * virtual time with these; a node started with {@code --wan} delays the frames it sends to its peers with the same
 * ones, so a cluster of processes on one machine lives on the simulator's hosts.
 */
package io.rattan.core.wan;
