package io.rattan.core.arch.cycle.a;

import io.rattan.core.arch.cycle.b.Second;

/** Half of a deliberate package cycle, for {@code PackageRulesTest} to catch. */
public final class First {

    Second second;
}
