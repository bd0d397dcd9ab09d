package io.rattan.sim.experiment;

import io.rattan.core.virtual.VirtualWorld;
import io.rattan.sim.net.WideAreaLatencyModel;

/** One {@link OpenDhtTable} run's world, and the meter and client processes its gets go through. */
record TableWorld(VirtualWorld world, WideAreaLatencyModel net, CostMeter meter, SimClients clients) {
}
