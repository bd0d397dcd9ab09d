package io.rattan.node.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * The YAML files of {@code deploy/kubernetes}, each document read into fabric8's model class for its apiVersion and
 * kind.
 *
 * <p>Read with Jackson 2: fabric8 8's own (de)serializers (of {@code IntOrString} and {@code Quantity}) are Jackson
 * 3's, whose databind needs jackson-annotations 2.20, and the build pins 2.18; Jackson 2 binds the models through
 * their Jackson annotations, and those two through their one-argument constructors. A field a model does not know
 * lands in its {@code additionalProperties} ({@link UnknownFields}).
 */
final class Manifests {

    /** The repository's manifests, seen from the module the test runs in ({@code dht-node}). */
    static final Path DIR = Path.of("..", "deploy", "kubernetes");
    static final String KUSTOMIZATION = "kustomization.yaml";
    /** apiVersion/kind of every kind the manifests may hold, to its model class. */
    static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "v1/Service", Service.class,
            "apps/v1/StatefulSet", StatefulSet.class,
            "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class);

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** One YAML document: its file, its place in the file, its tree, and the model read from it. */
    record Resource(Path file, int index, JsonNode tree, HasMetadata model) {
        String where() {
            return file.getFileName() + " (document " + (index + 1) + ", " + tree.path("kind").asText() + ")";
        }
    }

    private final List<Path> files;
    private final JsonNode kustomization;
    private final List<Resource> resources;

    private Manifests(List<Path> files, JsonNode kustomization, List<Resource> resources) {
        this.files = files;
        this.kustomization = kustomization;
        this.resources = resources;
    }

    /**
     * Reads every {@code .yaml}/{@code .yml} file of {@link #DIR}.
     *
     * @throws AssertionError on a document of a kind {@link #KINDS} does not list, or that does not bind to its class
     */
    static Manifests read() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(DIR)) {
            files = s.filter(p -> p.getFileName().toString().matches(".*\\.ya?ml")).sorted().toList();
        }
        JsonNode kustomization = null;
        List<Resource> resources = new ArrayList<>();
        for (Path file : files) {
            if (file.getFileName().toString().equals(KUSTOMIZATION)) {
                kustomization = YAML.readTree(file.toFile());
                continue;
            }
            try (MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
                int index = 0;
                while (docs.hasNext()) {
                    JsonNode tree = docs.next();
                    if (tree != null && !tree.isNull() && !tree.isMissingNode()) {
                        resources.add(bind(file, index, tree));
                    }
                    index++;
                }
            }
        }
        return new Manifests(files, kustomization, resources);
    }

    private static Resource bind(Path file, int index, JsonNode tree) throws IOException {
        String kind = tree.path("apiVersion").asText() + "/" + tree.path("kind").asText();
        Class<? extends HasMetadata> type = KINDS.get(kind);
        if (type == null) {
            throw new AssertionError(file.getFileName() + " (document " + (index + 1) + "): apiVersion/kind " + kind
                    + " is none of " + KINDS.keySet());
        }
        return new Resource(file, index, tree, YAML.treeToValue(tree, type));
    }

    List<Path> files() {
        return files;
    }

    /** The kustomization's tree, or null when there is none. */
    JsonNode kustomization() {
        return kustomization;
    }

    List<Resource> resources() {
        return resources;
    }

    /** Every model of {@code type}. */
    <T extends HasMetadata> List<T> all(Class<T> type) {
        return resources.stream().map(Resource::model).filter(type::isInstance).map(type::cast).toList();
    }

    /** The one model of {@code type}. */
    <T extends HasMetadata> T one(Class<T> type) {
        List<T> all = all(type);
        if (all.size() != 1) {
            throw new AssertionError("expected one " + type.getSimpleName() + " in " + DIR + ", found " + all.size());
        }
        return all.get(0);
    }

    /** The project's version: {@code <version>} of the repository's root pom.xml. */
    static String projectVersion() throws Exception {
        return xpath(DIR.resolve("../../pom.xml"), "/project/version")
                .orElseThrow(() -> new AssertionError("no /project/version in the root pom.xml"));
    }

    /**
     * The image Jib builds, from dht-node's pom.xml ({@code <to><image>}), if it names one; its Maven properties put
     * in from the two poms' {@code <properties>} and the project's version.
     */
    static Optional<String> jibImage(String version) throws Exception {
        Optional<String> image = xpath(Path.of("pom.xml"),
                "//plugin[artifactId='jib-maven-plugin']/configuration/to/image");
        if (image.isEmpty()) {
            return image;
        }
        Map<String, String> properties = new HashMap<>(properties(DIR.resolve("../../pom.xml")));
        properties.putAll(properties(Path.of("pom.xml")));
        properties.put("project.version", version);
        String value = image.get();
        for (int i = 0; i < 10 && value.contains("${"); i++) {
            for (Map.Entry<String, String> p : properties.entrySet()) {
                value = value.replace("${" + p.getKey() + "}", p.getValue());
            }
        }
        return Optional.of(value);
    }

    /** The JVM flags of the image's entrypoint (Jib's {@code <entrypoint>}, else its {@code <jvmFlags>}). */
    static List<String> imageJvmFlags() throws Exception {
        String jib = "//plugin[artifactId='jib-maven-plugin']/configuration/container/";
        NodeList args = (NodeList) XPathFactory.newInstance().newXPath().evaluate(jib + "entrypoint/arg | " + jib
                + "jvmFlags/jvmFlag", parse(Path.of("pom.xml")), XPathConstants.NODESET);
        List<String> flags = new ArrayList<>();
        for (int i = 0; i < args.getLength(); i++) {
            String a = args.item(i).getTextContent().trim();
            if (a.startsWith("-X")) {
                flags.add(a);
            }
        }
        return flags;
    }

    private static Map<String, String> properties(Path pom) throws Exception {
        Map<String, String> out = new HashMap<>();
        NodeList nodes = (NodeList) XPathFactory.newInstance().newXPath()
                .evaluate("/project/properties/*", parse(pom), XPathConstants.NODESET);
        for (int i = 0; i < nodes.getLength(); i++) {
            out.put(nodes.item(i).getNodeName(), nodes.item(i).getTextContent().trim());
        }
        return out;
    }

    private static Document parse(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(pom.toFile());
    }

    private static Optional<String> xpath(Path pom, String expression) throws Exception {
        String value = (String) XPathFactory.newInstance().newXPath().evaluate(expression, parse(pom),
                XPathConstants.STRING);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }
}
