package io.rattan.core.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps dht-core's shape: its packages depend on one another without a cycle, and its public surface is the types
 * other modules name in their signatures, as Ratis keeps its implementation classes package-private. Each rule is
 * also run where it must fail.
 */
class PackageRulesTest {

    /**
     * Every public top-level type of dht-core. A new one must be used by dht-client, dht-node or dht-sim, or timed by
     * bench's microbenchmarks (the next-hop choice: {@code NextHopPolicy}, {@code RttView}, {@code LeafSet},
     * {@code RoutingTable}, {@code RttEstimator}); anything else stays package-private in the package that uses it.
     */
    private static final Set<String> PUBLIC_API = new TreeSet<>(Set.of(
            "client.GetRace", "client.HedgeThreshold", "client.KeepAlive", "client.OneHopImage", "client.OneHopRouter",
            "codec.CodecException", "codec.MessageCodec",
            "env.Cancellable", "env.Clock", "env.ExpiryClock", "env.NodeEnv", "env.RequestIds", "env.Scheduler",
            "env.Transport", "node.OriginLimits", "util.ExpiringBytes",
            "id.NodeKey",
            "msg.ClientMessages", "msg.Envelope", "msg.MembershipMessages", "msg.Message", "msg.MessageType",
            "msg.NamespaceMessages", "msg.PutCondition", "msg.RepairMessages", "msg.ReplicaMessages", "msg.RequestMessages",
            "msg.SecretBinding", "msg.WatchMessages",
            "msg.WatchKind", "msg.NamespaceDefinition",
            "net.Contact",
            "owned.OwnerSignatures", "owned.SignedBytes",
            "node.ClientRequestValidator", "node.LeafSet", "node.NextHopPolicy", "node.Node", "node.NodeConfig",
            "node.NodeListener", "node.NodeStatus", "node.NamespaceChange", "node.RepairTotals", "node.ReplicaView",
            "node.RoutingTable",
            "node.RttEstimator", "node.RttView", "node.WatchLimits",
            "slow.Distribution", "slow.SlowPeriod", "slow.SlowTrace",
            "store.MemoryStore", "store.Store", "store.NamespaceStores",
            "store.ForwardingStore", "store.StoreException",
            "store.StoredRecord",
            "testing.PlantedBugs",
            "util.Ed25519Pem",
            "virtual.LatencyModel", "virtual.VirtualAddresses", "virtual.VirtualNetwork", "virtual.VirtualScheduler",
            "virtual.VirtualWorld",
            "wan.HostAssignment", "wan.LatencyMatrix", "wan.OneWayDelay"));

    private static JavaClasses core;

    @BeforeAll
    static void importCore() {
        core = DeterminismRulesTest.mainClasses();
    }

    static ArchRule noPackageCycles(String packagePattern) {
        return slices().matching(packagePattern).should().beFreeOfCycles();
    }

    @Test
    void coresPackagesFormNoCycle() {
        noPackageCycles("io.rattan.core.(*)..").check(core);
    }

    @Test
    void theCycleRuleCatchesACycle() {
        JavaClasses cyclic = new ClassFileImporter().importPackages("io.rattan.core.arch.cycle");
        assertThat(noPackageCycles("io.rattan.core.arch.cycle.(*)..").evaluate(cyclic).hasViolation()).isTrue();
    }

    @Test
    void onlyTheApiIsPublic() {
        assertThat(publicTopLevelTypes(core)).containsExactlyElementsOf(PUBLIC_API);
    }

    @Test
    void thePublicSurfaceCheckSeesPublicTypes() {
        JavaClasses fixtures = ModuleRules.cyclicFixture();
        assertThat(publicTopLevelTypes(fixtures)).containsExactly("arch.cycle.a.First", "arch.cycle.b.Second");
    }

    private static Set<String> publicTopLevelTypes(JavaClasses classes) {
        Set<String> names = new TreeSet<>();
        for (JavaClass c : classes) {
            if (c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)) {
                names.add(c.getName().substring("io.rattan.core.".length()));
            }
        }
        return names;
    }
}
