package io.rattan.core.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps dht-core deterministic by the build: node logic gets time, randomness and concurrency only through the
 * doors it is given, so the virtual world can replay any run from its seed.
 */
class DeterminismRulesTest {

    private static JavaClasses core;

    @BeforeAll
    static void importCore() {
        core = new ClassFileImporter()
                .withImportOption(location -> !location.contains("/test-classes/"))
                .importPackages("io.rattan.core");
    }

    private static void check(ArchRule rule) {
        rule.check(core);
    }

    @Test
    void noSystemClock() {
        check(noClasses().should().callMethod(System.class, "nanoTime")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .orShould().callMethod(java.time.Clock.class, "systemUTC")
                .orShould().callMethod(java.time.Clock.class, "systemDefaultZone")
                .orShould().callMethod(java.time.Clock.class, "system", java.time.ZoneId.class)
                .because("time comes from the node's Clock"));
    }

    @Test
    void noUnseededRandomness() {
        check(noClasses().should().callMethod(Math.class, "random")
                .orShould().callConstructor(java.util.Random.class)
                .orShould().callConstructor(java.util.Random.class, long.class)
                .orShould().callConstructor(java.util.SplittableRandom.class)
                .orShould().callMethod(java.util.UUID.class, "randomUUID")
                .orShould().callMethod(java.util.Collections.class, "shuffle", java.util.List.class)
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.ThreadLocalRandom")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.security.SecureRandom")
                .because("randomness comes from the node's seeded RandomGenerator"));
    }

    @Test
    void noThreadsOrExecutors() {
        check(noClasses().should().dependOnClassesThat().areAssignableTo(Thread.class)
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.Executors")
                .orShould().dependOnClassesThat().areAssignableTo(java.util.concurrent.ExecutorService.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.util.concurrent.ForkJoinPool.class)
                .orShould().callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                        com.tngtech.archunit.base.DescribedPredicate.describe("CompletableFuture.*Async",
                                t -> t.getOwner().isEquivalentTo(java.util.concurrent.CompletableFuture.class)
                                        && t.getName().endsWith("Async"))))
                .orShould().callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                        com.tngtech.archunit.base.DescribedPredicate.describe(
                                "parallelStream() or a stream's parallel()", t -> t.getName().equals("parallelStream")
                                        || t.getName().equals("parallel") && t.getOwner()
                                                .isAssignableTo(java.util.stream.BaseStream.class))))
                .because("one event loop owns a node's state"));
    }

    @Test
    void noNettyRocksDbOrMicrometer() {
        check(noClasses().should().dependOnClassesThat().resideInAnyPackage("io.netty..", "org.rocksdb..",
                "io.micrometer.."));
    }
}
