package io.rattan.core.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps dht-core deterministic by the build: node logic gets time, randomness and concurrency only through the
 * doors it is given, so the virtual world can replay any run from its seed. Each rule is also run against
 * {@link Violations}, which breaks every ban once, so a rule that matched nothing would fail here too.
 */
class DeterminismRulesTest {

    private static JavaClasses core;

    @BeforeAll
    static void importCore() {
        core = mainClasses();
    }

    /** dht-core's main classes, without its tests and their deliberate violations. */
    static JavaClasses mainClasses() {
        return new ClassFileImporter()
                .withImportOption(location -> !location.contains("/test-classes/"))
                .importPackages("io.rattan.core");
    }

    static ArchRule systemClock() {
        return noClasses().should().callMethod(System.class, "nanoTime")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .orShould().callMethod(java.time.Clock.class, "systemUTC")
                .orShould().callMethod(java.time.Clock.class, "systemDefaultZone")
                .orShould().callMethod(java.time.Clock.class, "system", java.time.ZoneId.class)
                .because("time comes from the node's Clock");
    }

    static ArchRule unseededRandomnessOrIdentityOrder() {
        return noClasses().should().callMethod(Math.class, "random")
                .orShould().callConstructor(Random.class)
                .orShould().callConstructor(Random.class, long.class)
                .orShould().callConstructor(SplittableRandom.class)
                .orShould().callMethod(UUID.class, "randomUUID")
                .orShould().callMethod(Collections.class, "shuffle", List.class)
                .orShould().callMethod(RandomGenerator.class, "getDefault")
                .orShould().dependOnClassesThat().haveFullyQualifiedName(RandomGeneratorFactory.class.getName())
                .orShould().dependOnClassesThat().haveFullyQualifiedName(ThreadLocalRandom.class.getName())
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.security.SecureRandom")
                .orShould().callMethod(System.class, "identityHashCode", Object.class)
                .because("randomness comes from the node's seeded RandomGenerator, and no order may depend on "
                        + "where objects happen to live");
    }

    static ArchRule threadsOrExecutors() {
        return noClasses().should().dependOnClassesThat().areAssignableTo(Thread.class)
                .orShould().dependOnClassesThat().haveFullyQualifiedName(Executors.class.getName())
                .orShould().dependOnClassesThat().areAssignableTo(java.util.concurrent.ExecutorService.class)
                .orShould().dependOnClassesThat().areAssignableTo(java.util.concurrent.ForkJoinPool.class)
                .orShould().callMethodWhere(JavaCall.Predicates.target(DescribedPredicate.describe(
                        "CompletableFuture.*Async or CompletionStage.*Async",
                        t -> t.getOwner().isAssignableTo(java.util.concurrent.CompletionStage.class)
                                && t.getName().endsWith("Async"))))
                .orShould().callMethodWhere(JavaCall.Predicates.target(DescribedPredicate.describe(
                        "parallelStream(), a stream's parallel() or Arrays.parallel*",
                        t -> t.getName().equals("parallelStream")
                                || t.getName().equals("parallel")
                                        && t.getOwner().isAssignableTo(java.util.stream.BaseStream.class)
                                || t.getName().startsWith("parallel") && t.getOwner().isEquivalentTo(Arrays.class))))
                .because("one event loop owns a node's state");
    }

    static ArchRule nettyRocksDbOrMicrometer() {
        return noClasses().should().dependOnClassesThat().resideInAnyPackage("io.netty..", "org.rocksdb..",
                "io.micrometer..");
    }

    @Test
    void noSystemClock() {
        systemClock().check(core);
    }

    @Test
    void noUnseededRandomnessOrIdentityOrder() {
        unseededRandomnessOrIdentityOrder().check(core);
    }

    @Test
    void noThreadsOrExecutors() {
        threadsOrExecutors().check(core);
    }

    @Test
    void noNettyRocksDbOrMicrometer() {
        nettyRocksDbOrMicrometer().check(core);
    }

    @Test
    void everyBanCatchesACallOfWhatItBans() {
        JavaClasses bad = new ClassFileImporter().importClasses(Violations.class);
        assertThat(violations(systemClock(), bad)).contains(
                "<java.lang.System.nanoTime()>", "<java.lang.System.currentTimeMillis()>", "<java.time.Instant.now()>",
                "<java.time.Clock.systemUTC()>", "<java.time.Clock.systemDefaultZone()>",
                "<java.time.Clock.system(java.time.ZoneId)>");
        assertThat(violations(unseededRandomnessOrIdentityOrder(), bad)).contains(
                "<java.lang.Math.random()>", "<java.util.Random.<init>()>", "<java.util.Random.<init>(long)>",
                "<java.util.SplittableRandom.<init>()>", "<java.util.UUID.randomUUID()>",
                "<java.util.Collections.shuffle(java.util.List)>", "<java.util.random.RandomGenerator.getDefault()>",
                "<java.util.random.RandomGeneratorFactory.of(java.lang.String)>",
                "<java.util.concurrent.ThreadLocalRandom.current()>",
                "<java.lang.System.identityHashCode(java.lang.Object)>");
        assertThat(violations(threadsOrExecutors(), bad)).contains(
                "<java.lang.Thread.<init>(java.lang.Runnable)>",
                "<java.util.concurrent.Executors.newSingleThreadExecutor()>",
                "<java.util.concurrent.CompletableFuture.supplyAsync(java.util.function.Supplier)>",
                "<java.util.concurrent.CompletionStage.thenApplyAsync(java.util.function.Function)>",
                "<java.util.List.parallelStream()>", "<java.util.stream.Stream.parallel()>",
                "<java.util.Arrays.parallelSort([I)>");
    }

    /**
     * The violations a rule finds, one a line, without the rule's own description: that names every banned call, so
     * searching the whole failure message would find a call that no ban matched.
     */
    private static String violations(ArchRule rule, JavaClasses classes) {
        return String.join("\n", rule.evaluate(classes).getFailureReport().getDetails());
    }

    /** Breaks every ban once; never run, only read by ArchUnit. */
    @SuppressWarnings("unused")
    static final class Violations {
        long clock() {
            return System.nanoTime() + System.currentTimeMillis() + java.time.Instant.now().getNano()
                    + java.time.Clock.systemUTC().millis() + java.time.Clock.systemDefaultZone().millis()
                    + java.time.Clock.system(java.time.ZoneOffset.UTC).millis();
        }

        double random(List<Integer> list) {
            Collections.shuffle(list);
            return Math.random() + new Random().nextInt() + new Random(1).nextInt() + new SplittableRandom().nextInt()
                    + UUID.randomUUID().hashCode() + RandomGenerator.getDefault().nextInt()
                    + RandomGeneratorFactory.of("L64X128MixRandom").create().nextInt()
                    + ThreadLocalRandom.current().nextInt() + System.identityHashCode(list);
        }

        void threads(List<Integer> list, CompletableFuture<Integer> stage) {
            new Thread(() -> { }).start();
            Executors.newSingleThreadExecutor().shutdown();
            CompletableFuture.supplyAsync(() -> 1);
            ((java.util.concurrent.CompletionStage<Integer>) stage).thenApplyAsync(x -> x);
            list.parallelStream().count();
            list.stream().parallel().count();
            Arrays.parallelSort(new int[] {2, 1});
        }
    }
}
