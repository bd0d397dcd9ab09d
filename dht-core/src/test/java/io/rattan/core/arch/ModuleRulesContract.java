package io.rattan.core.arch;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The architecture rules of {@link ModuleRules}, written once and run by each module over its own main classes by a
 * subclass that names its root package; each rule is also run on its fixture, where it must fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ModuleRulesContract {

    private JavaClasses main;

    /** The module's root package, e.g. {@code io.rattan.node}. */
    protected abstract String rootPackage();

    /** The packages of this module that may use the fault-injection switches; none but the fault simulator's. */
    protected String[] faultSwitchUsers() {
        return new String[] {"io.rattan.sim.faults.."};
    }

    @BeforeAll
    void importMainClasses() {
        main = ModuleRules.mainClassesOf(rootPackage());
    }

    @Test
    void packagesFormNoCycle() {
        ModuleRules.noPackageCycles().check(main);
    }

    @Test
    void theCycleRuleCatchesACycle() {
        assertThat(ModuleRules.noPackageCycles().evaluate(ModuleRules.cyclicFixture()).hasViolation()).isTrue();
    }

    @Test
    void onlyTheFaultSimulatorUsesFaultSwitches() {
        ModuleRules.faultSwitchesOnlyIn(faultSwitchUsers()).check(main);
    }

    @Test
    void theFaultSwitchRuleCatchesAUse() {
        assertThat(ModuleRules.faultSwitchesOnlyIn(faultSwitchUsers()).evaluate(ModuleRules.faultSwitchFixture())
                .hasViolation()).isTrue();
    }
}
