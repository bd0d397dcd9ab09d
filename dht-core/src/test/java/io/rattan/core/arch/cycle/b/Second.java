package io.rattan.core.arch.cycle.b;

import io.rattan.core.arch.cycle.a.First;

/** The other half of a deliberate package cycle, for {@code PackageRulesTest} to catch. */
public final class Second {

    First first;
}
