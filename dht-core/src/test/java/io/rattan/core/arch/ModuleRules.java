package io.rattan.core.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The architecture rules every module runs over its own main classes (the other modules reach this class through
 * dht-core's test-jar), and the fixtures on which each must fail, so that a rule that matches nothing cannot pass
 * unseen.
 */
public final class ModuleRules {

    /** The package of the fault-injection switches; only the fault simulator and tests may use it. */
    public static final String FAULT_SWITCHES = "io.rattan.core.testing..";

    private ModuleRules() {
    }

    /** The main classes of {@code rootPackage} and the packages below it, without test classes. */
    public static JavaClasses mainClassesOf(String rootPackage) {
        return new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("/test-classes/") && !location.contains("-tests.jar"))
                .importPackages(rootPackage);
    }

    /**
     * No two packages of the classes checked depend on each other, directly or around a longer cycle; every package
     * is a slice of its own, the root package of a module included.
     */
    public static ArchRule noPackageCycles() {
        return slices().matching("io.rattan.(**)").should().beFreeOfCycles();
    }

    /** No class outside {@code allowedPackages} (ArchUnit package patterns) uses the fault-injection switches. */
    public static ArchRule faultSwitchesOnlyIn(String... allowedPackages) {
        return noClasses().that().resideOutsideOfPackages(allowedPackages)
                .and().resideOutsideOfPackage(FAULT_SWITCHES)
                .should().dependOnClassesThat().resideInAPackage(FAULT_SWITCHES)
                .because("fault-injection switches are for the fault simulator and tests only");
    }

    /** Two packages that depend on each other: {@link #noPackageCycles} must fail on them. */
    public static JavaClasses cyclicFixture() {
        return new ClassFileImporter().importPackages("io.rattan.core.arch.cycle");
    }

    /** A class that sets a fault-injection switch: {@link #faultSwitchesOnlyIn} must fail on it. */
    public static JavaClasses faultSwitchFixture() {
        return new ClassFileImporter().importPackages("io.rattan.core.arch.fault");
    }
}
