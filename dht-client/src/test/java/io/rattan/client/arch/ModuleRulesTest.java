package io.rattan.client.arch;

import io.rattan.core.arch.ModuleRulesContract;

/** dht-core's architecture rules over this module's main classes. */
class ModuleRulesTest extends ModuleRulesContract {

    @Override
    protected String rootPackage() {
        return "io.rattan.client";
    }
}
