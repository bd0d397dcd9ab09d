package io.rattan.core.arch;

/**
 * The rules every module runs, over dht-core: no cycle between any two of its packages (finer than
 * {@link PackageRulesTest}'s top-level slices), and the fault-injection switches used only by the node logic they
 * switch and the virtual world that builds nodes with them.
 */
class CoreModuleRulesTest extends ModuleRulesContract {

    @Override
    protected String rootPackage() {
        return "io.rattan.core";
    }

    @Override
    protected String[] faultSwitchUsers() {
        return new String[] {"io.rattan.core.node..", "io.rattan.core.virtual.."};
    }
}
