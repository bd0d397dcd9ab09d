package io.rattan.node.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.deploy.Manifests.Resource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The Kubernetes manifests in {@code deploy/kubernetes/} are what Kubernetes and {@code rattan node} take, checked
 * offline (no cluster): every document binds to fabric8's model of its kind with no field the model does not know;
 * the Services select the StatefulSet's pods and reach the node's ports, which are {@code rattan node}'s own; every
 * {@code RATTAN_*} variable is a setting, and the container's environment is a valid {@code rattan node} start
 * ({@code --print-config}); pods join through the headless Service and pod 0 founds; the CA's key reaches the init
 * container only, which runs a valid {@code rattan certs node}; the grace period outlasts the node's graceful stop.
 */
class KubernetesManifestsTest {

    /** The image's user and group ({@code rattan-node} runs as 10001, not root). */
    private static final long IMAGE_UID = 10001;
    private static final String CA_KEY = "ca.key";
    private static final String CA_CERT = "ca.crt";
    /** Variables of the node's container that are no setting: the downward API's, and the JVM's and RocksJava's. */
    private static final Set<String> OTHER_ENV = Set.of("POD_IP", "JAVA_TOOL_OPTIONS", "ROCKSDB_SHAREDLIB_DIR");
    /** A port's name, as Kubernetes takes it (IANA_SVC_NAME). */
    private static final Pattern PORT_NAME = Pattern.compile("(?=.{1,15}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?");

    private static Manifests manifests;
    private static StatefulSet statefulSet;
    private static PodSpec pod;
    private static Container node;

    @BeforeAll
    static void read() throws IOException {
        manifests = Manifests.read();
        statefulSet = manifests.one(StatefulSet.class);
        pod = statefulSet.getSpec().getTemplate().getSpec();
        assertThat(pod.getContainers()).as("the pod's containers: the node alone").hasSize(1);
        node = pod.getContainers().get(0);
    }

    @Test
    void everyFileIsAResourceTheKustomizationLists() {
        JsonNode k = manifests.kustomization();
        assertThat(k).as(Manifests.KUSTOMIZATION).isNotNull();
        assertThat(k.path("apiVersion").asText()).isEqualTo("kustomize.config.k8s.io/v1beta1");
        assertThat(k.path("kind").asText()).isEqualTo("Kustomization");
        Set<String> fields = new TreeSet<>();
        k.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).as("the kustomization's fields").isSubsetOf("apiVersion", "kind", "resources");
        List<String> listed = new ArrayList<>();
        k.path("resources").forEach(r -> listed.add(r.asText()));
        List<String> files = manifests.files().stream().map(p -> p.getFileName().toString())
                .filter(n -> !n.equals(Manifests.KUSTOMIZATION)).toList();
        assertThat(listed).as("the kustomization's resources: every other file of " + Manifests.DIR)
                .doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(files);
        assertThat(manifests.all(Service.class)).as("Services: the peers' and the clients'").hasSize(2);
        assertThat(manifests.all(PodDisruptionBudget.class)).hasSize(1);
        assertThat(manifests.resources()).extracting(r -> r.tree().path("kind").asText() + "/"
                + r.model().getMetadata().getName()).as("kind/name of every resource").doesNotHaveDuplicates();
    }

    @Test
    void everyFieldIsOneKubernetesKnows() {
        for (Resource r : manifests.resources()) {
            assertThat(UnknownFields.in(r.model())).as("fields of %s that its model does not know", r.where())
                    .isEmpty();
        }
    }

    @Test
    void theServicesSelectTheNodesAndReachTheirPorts() {
        Map<String, String> labels = statefulSet.getSpec().getTemplate().getMetadata().getLabels();
        assertThat(labels).as("the pods' labels, which the StatefulSet selects")
                .containsAllEntriesOf(statefulSet.getSpec().getSelector().getMatchLabels());
        for (Service s : manifests.all(Service.class)) {
            assertThat(s.getSpec().getSelector()).as("%s's selector", s.getMetadata().getName()).isNotEmpty();
            assertThat(labels).as("the pods' labels, which %s selects", s.getMetadata().getName())
                    .containsAllEntriesOf(s.getSpec().getSelector());
            assertThat(s.getSpec().getPorts()).extracting(ServicePort::getName).as("%s's port names", s)
                    .allMatch(n -> PORT_NAME.matcher(n).matches());
        }
        Service peers = headless();
        assertThat(statefulSet.getSpec().getServiceName()).as("the StatefulSet's serviceName")
                .isEqualTo(peers.getMetadata().getName());
        assertThat(peers.getSpec().getPublishNotReadyAddresses())
                .as("the peers' Service lists nodes that are not ready yet").isTrue();
        assertThat(targets(peers)).as("the peers' Service's ports").containsExactly(port("--port"));
        Service clients = manifests.all(Service.class).stream().filter(s -> s != peers).findFirst().orElseThrow();
        assertThat(Optional.ofNullable(clients.getSpec().getType()).orElse("ClusterIP")).isEqualTo("ClusterIP");
        assertThat(clients.getSpec().getPublishNotReadyAddresses()).as("the clients' Service: ready nodes only")
                .isNotEqualTo(Boolean.TRUE);
        assertThat(targets(clients)).as("the clients' Service's ports")
                .containsExactlyInAnyOrder(port("--gateway-port"), port("--http-port"));
        assertThat(clients.getSpec().getPorts()).as("the clients' Service's ports are the node's own numbers")
                .allMatch(p -> p.getPort().equals(containerPort(p.getTargetPort())));
    }

    @Test
    void theContainerPortsAreTheNodesPorts() {
        Map<String, Integer> ports = node.getPorts().stream()
                .collect(Collectors.toMap(ContainerPort::getName, ContainerPort::getContainerPort));
        assertThat(ports).as("the node's container ports, by name").isEqualTo(Map.of(
                "peer", port("--port"), "gateway", port("--gateway-port"), "http", port("--http-port")));
        assertThat(ports.keySet()).allMatch(n -> PORT_NAME.matcher(n).matches());
    }

    @Test
    void theProbesAskTheHttpGatewayForHealthAndReadiness() {
        // /health and /ready are served on the HTTP port without a token (HttpAccess.isProbe), over HTTPS when the
        // client ports take TLS.
        String scheme = PodEnv.of(node).containsKey("RATTAN_CLIENT_TLS_CERT") ? "HTTPS" : "HTTP";
        assertProbe(node.getReadinessProbe(), "readiness", "/ready", scheme);
        assertProbe(node.getLivenessProbe(), "liveness", "/health", scheme);
        if (node.getStartupProbe() != null) {
            assertProbe(node.getStartupProbe(), "startup", "/health", scheme);
        }
    }

    @Test
    void everyRattanVariableIsASettingOfRattanNode() {
        for (EnvVar v : node.getEnv()) {
            String name = v.getName();
            if (!name.startsWith(NodeCli.ENV_PREFIX)) {
                assertThat(name).as("a variable that is no setting of rattan node").isIn(OTHER_ENV);
                continue;
            }
            String flag = NodeCli.flagOf(name);
            OptionSpec option = NodeCli.node().findOption(flag);
            assertThat(option).as("%s: rattan node has no option %s", name, flag).isNotNull();
            assertThat(option.longestName()).as("%s: the environment names an option by its longest name", name)
                    .isEqualTo(flag);
        }
    }

    @Test
    void theNodesEnvironmentIsAValidStartOfRattanNode() throws ReflectiveOperationException {
        assertThat(node.getCommand()).as("the node's command: the image's entrypoint runs rattan").isNullOrEmpty();
        List<String> args = node.getArgs() == null || node.getArgs().isEmpty() ? List.of("node") : node.getArgs();
        assertThat(args).as("the node's args").containsExactly("node");
        Map<String, String> env = PodEnv.of(node);

        NodeCli.Run run = NodeCli.printConfig(args, env);

        assertThat(run.exit()).as("rattan node --print-config: %s", run.err()).isZero();
        assertThat(run.err()).as("warnings (a flag-only setting in the environment, say)").doesNotContain("warning");
        for (String name : env.keySet()) {
            if (name.startsWith(NodeCli.ENV_PREFIX)) {
                assertThat(run.out()).as("%s is read from the environment", name).containsPattern("(?m)^"
                        + Pattern.quote(NodeCli.flagOf(name).substring(2)) + " .*environment " + name + "$");
            }
        }
        assertThat(run.out()).as("the node advertises its pod's IP")
                .containsPattern("(?m)^advertise +" + Pattern.quote(PodEnv.SAMPLE_POD_IP) + " ");
        assertThat(run.out()).as("the node listens on the pod's interfaces (probes and Services reach the pod IP)")
                .containsPattern("(?m)^bind +(0\\.0\\.0\\.0|::|" + Pattern.quote(PodEnv.SAMPLE_POD_IP) + ") ");
    }

    @Test
    void everyPodJoinsThroughTheHeadlessServiceAndPodZeroFounds() {
        Map<String, String> env = PodEnv.of(node);
        String peers = headless().getMetadata().getName();
        String bootstrap = env.get("RATTAN_BOOTSTRAP");
        assertThat(bootstrap).as("RATTAN_BOOTSTRAP").isNotNull();
        assertThat(bootstrap.split(",")).as("the bootstrap list names the headless Service and the peer port")
                .anyMatch(e -> e.equals(peers + ":" + port("--port"))
                        || e.startsWith(peers + ".") && e.endsWith(":" + port("--port")));
        assertThat(env.get("RATTAN_FOUNDER_HOST")).as("the founder: the StatefulSet's pod 0 (its HOSTNAME)")
                .isEqualTo(statefulSet.getMetadata().getName() + "-0");
        assertThat(env).as("HOSTNAME stays the pod's name").doesNotContainKey("HOSTNAME");
        assertThat(pod.getHostname()).as("the pod's hostname stays its name").isNull();
        assertThat(PodEnv.raw(node, "POD_IP").getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
        assertThat(PodEnv.raw(node, "RATTAN_ADVERTISE").getValue()).isEqualTo("$(POD_IP)");
        assertThat(PodEnv.indexOf(node, "POD_IP")).as("POD_IP is listed before RATTAN_ADVERTISE, which expands it")
                .isLessThan(PodEnv.indexOf(node, "RATTAN_ADVERTISE"));
        assertThat(pod.getEnableServiceLinks()).as("enableServiceLinks (RATTAN_PORT=tcp://... would be --port)")
                .isFalse();
    }

    @Test
    void theGracePeriodOutlastsTheNodesGracefulStop() throws ReflectiveOperationException {
        Long grace = pod.getTerminationGracePeriodSeconds();
        assertThat(grace).as("terminationGracePeriodSeconds").isNotNull();
        assertThat(grace * 1000).as("the grace period, ms, against the hand-off's bound")
                .isGreaterThan(NodeCli.leaveBoundMillis());
        assertThat(grace * 1000).as("the grace period, ms, against the bounded waits of a graceful stop")
                .isGreaterThan(NodeCli.stopBoundMillis());
    }

    @Test
    void theNodesRunAsTheImagesUserAndKeepTheirKeyOwnerOnly() {
        PodSecurityContext sc = pod.getSecurityContext();
        assertThat(sc).as("the pod's securityContext").isNotNull();
        assertThat(sc.getRunAsNonRoot()).as("runAsNonRoot").isTrue();
        assertThat(sc.getRunAsUser()).as("runAsUser").isEqualTo(IMAGE_UID);
        assertThat(sc.getFsGroup()).as("fsGroup: the data volume is the node's").isEqualTo(IMAGE_UID);
        // "Always" would add group read and write to /data/node.key at every mount, and the node refuses such a key.
        assertThat(sc.getFsGroupChangePolicy()).as("fsGroupChangePolicy").isEqualTo("OnRootMismatch");
        for (Container c : containers()) {
            assertThat(c.getCommand()).as("%s's command: the image has no shell, only rattan", c.getName())
                    .isNullOrEmpty();
            if (c.getSecurityContext() == null) {
                continue;
            }
            assertThat(c.getSecurityContext().getRunAsNonRoot()).as("%s runAsNonRoot", c.getName())
                    .isNotEqualTo(Boolean.FALSE);
            assertThat(c.getSecurityContext().getRunAsUser()).as("%s runAsUser", c.getName())
                    .isIn(null, IMAGE_UID);
            if (Boolean.TRUE.equals(c.getSecurityContext().getReadOnlyRootFilesystem())) {
                assertThat(volume(mountAt(c, "/tmp").getName()).map(Volume::getEmptyDir)).as("%s's /tmp, where "
                        + "RocksJava and Netty extract their native libraries", c.getName()).isPresent();
            }
        }
        assertThat(node.getSecurityContext().getReadOnlyRootFilesystem()).as("the node's root file system")
                .isTrue();
    }

    @Test
    void theHeapLeavesHalfTheMemoryToRocksDbAndNetty() throws Exception {
        // HotSpot reads JAVA_TOOL_OPTIONS before the command line, so the image's entrypoint flags win over it.
        String toolOptions = PodEnv.of(node).getOrDefault("JAVA_TOOL_OPTIONS", "");
        List<String> flags = new ArrayList<>(List.of(toolOptions.trim().split("\\s+")));
        flags.addAll(Manifests.imageJvmFlags());
        Quantity limit = node.getResources().getLimits().get("memory");
        assertThat(limit).as("the node's memory limit").isNotNull();
        assertThat(JvmFlags.maxHeapBytes(flags, limit)).as("the heap (JVM flags %s), against the memory limit %s",
                flags, limit).isLessThanOrEqualTo(Quantity.getAmountInBytes(limit).doubleValue() / 2);
    }

    @Test
    void theImageIsThisBuildsImage() throws Exception {
        String version = Manifests.projectVersion();
        String expected = "rattan-node:" + version;
        Manifests.jibImage(version).ifPresent(jib -> assertThat(jib).as("the image Jib builds (dht-node/pom.xml)")
                .isEqualTo(expected));
        for (Container c : containers()) {
            assertThat(c.getImage()).as("%s's image", c.getName()).isEqualTo(expected);
        }
    }

    @Test
    void theCaKeyReachesOnlyTheInitContainerThatCertifiesTheNode() {
        List<Container> certifiers = Optional.ofNullable(pod.getInitContainers()).orElse(List.of()).stream()
                .filter(c -> c.getArgs() != null && c.getArgs().size() >= 2
                        && c.getArgs().subList(0, 2).equals(List.of("certs", "node"))).toList();
        assertThat(certifiers).as("init containers that run rattan certs node").hasSize(1);
        Container init = certifiers.get(0);
        ParseResult certsNode = NodeCli.parse(init.getArgs()).subcommand().subcommand();
        assertThat(certsNode.commandSpec().qualifiedName()).isEqualTo("rattan certs node");
        String caDir = certsNode.matchedOptionValue("--ca", Path.of("")).toString();
        String dataDir = certsNode.matchedOptionValue("--data-dir", Path.of("")).toString();

        Volume keys = volume(mountAt(init, caDir).getName()).orElseThrow();
        assertThat(keys.getSecret()).as("the CA directory %s: a Secret", caDir).isNotNull();
        String secret = keys.getSecret().getSecretName();
        assertThat(projects(keys, CA_KEY) && projects(keys, CA_CERT)).as("%s holds ca.key and ca.crt", caDir).isTrue();
        assertThat(keys.getSecret().getDefaultMode()).as("the CA key's mode: 0400").isNotNull();
        assertThat(keys.getSecret().getDefaultMode() & 077).as("group and others bits asked for the CA key").isZero();
        for (Container c : pod.getContainers()) {
            for (VolumeMount m : c.getVolumeMounts()) {
                Optional<Volume> v = volume(m.getName());
                assertThat(v.filter(x -> holdsCaKey(x, secret))).as("%s mounts %s, which holds %s's %s",
                        c.getName(), m.getName(), secret, CA_KEY).isEmpty();
            }
        }

        Path caFile = Path.of(PodEnv.of(node).get("RATTAN_TLS_CA"));
        Volume certs = volume(mountAt(node, caFile.getParent().toString()).getName()).orElseThrow();
        assertThat(certs.getSecret()).as("RATTAN_TLS_CA's directory: a Secret").isNotNull();
        assertThat(certs.getSecret().getSecretName()).isEqualTo(secret);
        assertThat(certs.getSecret().getItems()).as("the node's view of %s: its certificate only", secret)
                .extracting(KeyToPath::getKey, KeyToPath::getPath)
                .containsExactly(tuple(CA_CERT, caFile.getFileName().toString()));

        String nodeData = PodEnv.of(node).get("RATTAN_DATA_DIR");
        assertThat(mountAt(init, dataDir).getName()).as("the volume the certificate is written to is the node's")
                .isEqualTo(mountAt(node, nodeData).getName());
        assertThat(PodEnv.of(node)).as("the node's certificate: node.crt in its data directory, the default")
                .doesNotContainKey("RATTAN_TLS_CERT");
        assertThat(statefulSet.getSpec().getVolumeClaimTemplates()).extracting(c -> c.getMetadata().getName())
                .as("the data directory: a volume claim of each pod").contains(mountAt(node, nodeData).getName());
    }

    @Test
    void theDisruptionBudgetTakesOneNodeAtATime() {
        PodDisruptionBudget pdb = manifests.one(PodDisruptionBudget.class);
        assertThat(pdb.getSpec().getMinAvailable()).as("minAvailable").isNull();
        IntOrString max = pdb.getSpec().getMaxUnavailable();
        assertThat(max).as("maxUnavailable").isNotNull();
        assertThat(max.getIntVal()).as("maxUnavailable").isEqualTo(1);
        LabelSelector selector = pdb.getSpec().getSelector();
        assertThat(selector.getMatchExpressions()).isNullOrEmpty();
        assertThat(selector.getMatchLabels()).as("the budget's selector").isNotEmpty();
        assertThat(statefulSet.getSpec().getTemplate().getMetadata().getLabels())
                .as("the pods' labels, which the budget selects").containsAllEntriesOf(selector.getMatchLabels());
        assertThat(statefulSet.getSpec().getReplicas() - max.getIntVal())
                .as("nodes left during a disruption, against the default write quorum W")
                .isGreaterThanOrEqualTo(NodeConfig.defaults().writeQuorum());
    }

    private static Service headless() {
        List<Service> headless = manifests.all(Service.class).stream()
                .filter(s -> "None".equals(s.getSpec().getClusterIP())).toList();
        assertThat(headless).as("headless Services (clusterIP: None)").hasSize(1);
        return headless.get(0);
    }

    /** The node's port for {@code flag}: the manifest's RATTAN_* value if it sets one, else rattan node's default. */
    private static int port(String flag) {
        String env = PodEnv.of(node).get(NodeCli.envOf(flag));
        return Integer.parseInt(env != null ? env : NodeCli.defaultOf(flag));
    }

    /** The container port a Service's or probe's port names (by name or number); fails when the node has none. */
    private static int containerPort(IntOrString port) {
        assertThat(port).as("a port").isNotNull();
        if (port.getStrVal() != null) {
            return node.getPorts().stream().filter(p -> port.getStrVal().equals(p.getName())).findFirst()
                    .map(ContainerPort::getContainerPort)
                    .orElseThrow(() -> new AssertionError("the node has no port named " + port.getStrVal()));
        }
        assertThat(node.getPorts()).extracting(ContainerPort::getContainerPort).as("the node's ports")
                .contains(port.getIntVal());
        return port.getIntVal();
    }

    private static List<Integer> targets(Service s) {
        return s.getSpec().getPorts().stream().map(p -> containerPort(
                p.getTargetPort() != null ? p.getTargetPort() : new IntOrString(p.getPort()))).toList();
    }

    private static void assertProbe(Probe probe, String what, String path, String scheme) {
        assertThat(probe).as("the %s probe", what).isNotNull();
        HTTPGetAction get = probe.getHttpGet();
        assertThat(get).as("the %s probe: an httpGet", what).isNotNull();
        assertThat(get.getPath()).as("the %s probe's path", what).isEqualTo(path);
        assertThat(containerPort(get.getPort())).as("the %s probe's port: the HTTP gateway's", what)
                .isEqualTo(port("--http-port"));
        assertThat(Optional.ofNullable(get.getScheme()).orElse("HTTP")).as("the %s probe's scheme", what)
                .isEqualTo(scheme);
    }

    private static List<Container> containers() {
        return Stream.concat(Optional.ofNullable(pod.getInitContainers()).orElse(List.of()).stream(),
                pod.getContainers().stream()).toList();
    }

    private static VolumeMount mountAt(Container c, String path) {
        String wanted = path.replaceAll("/+$", "");
        return c.getVolumeMounts().stream().filter(m -> m.getMountPath().replaceAll("/+$", "").equals(wanted))
                .findFirst().orElseThrow(() -> new AssertionError(c.getName() + " mounts nothing at " + path));
    }

    /** The pod's volume {@code name}; empty for a volume claim template's. */
    private static Optional<Volume> volume(String name) {
        return Optional.ofNullable(pod.getVolumes()).orElse(List.of()).stream()
                .filter(v -> v.getName().equals(name)).findFirst();
    }

    /** Whether secret volume {@code v} projects {@code key}: all its keys without items, else the items'. */
    private static boolean projects(Volume v, String key) {
        List<KeyToPath> items = v.getSecret().getItems();
        return items == null || items.isEmpty() || items.stream().anyMatch(i -> i.getKey().equals(key));
    }

    private static boolean holdsCaKey(Volume v, String secret) {
        if (v.getSecret() != null && secret.equals(v.getSecret().getSecretName())) {
            return projects(v, CA_KEY);
        }
        return v.getProjected() != null && v.getProjected().getSources().stream()
                .anyMatch(s -> s.getSecret() != null && secret.equals(s.getSecret().getName())
                        && (s.getSecret().getItems() == null || s.getSecret().getItems().isEmpty()
                        || s.getSecret().getItems().stream().anyMatch(i -> i.getKey().equals(CA_KEY))));
    }
}
