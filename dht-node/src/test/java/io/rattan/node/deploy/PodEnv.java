package io.rattan.node.deploy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container's environment as the kubelet makes it: {@code $(NAME)} expanded from the variables listed before it,
 * the downward API's fields given sample values (a pod's IP, its name).
 */
final class PodEnv {

    static final String SAMPLE_POD_IP = "10.0.0.7";
    private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
    private static final Map<String, String> FIELDS = Map.of(
            "status.podIP", SAMPLE_POD_IP,
            "metadata.name", "rattan-0",
            "metadata.namespace", "default");

    private PodEnv() {
    }

    /** {@code container}'s variables as its process sees them, in their order. */
    static Map<String, String> of(Container container) {
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar v : container.getEnv()) {
            String value;
            if (v.getValueFrom() != null) {
                if (v.getValueFrom().getFieldRef() == null) {
                    throw new AssertionError(v.getName() + ": only the downward API's fieldRef is sampled here");
                }
                String field = v.getValueFrom().getFieldRef().getFieldPath();
                value = FIELDS.get(field);
                if (value == null) {
                    throw new AssertionError(v.getName() + ": no sample value for the field " + field);
                }
            } else {
                value = expand(v.getValue() == null ? "" : v.getValue(), env);
            }
            env.put(v.getName(), value);
        }
        return env;
    }

    /** {@code value} with each {@code $(NAME)} of a variable defined before replaced, as Kubernetes does. */
    static String expand(String value, Map<String, String> before) {
        Matcher m = REFERENCE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String known = before.get(m.group(1));
            m.appendReplacement(out, Matcher.quoteReplacement(known != null ? known : m.group()));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The value {@code name} has in {@code container}'s manifest, unexpanded; fails when it is not set. */
    static EnvVar raw(Container container, String name) {
        return container.getEnv().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(container.getName() + " sets no " + name));
    }

    /** The index of {@code name} among {@code container}'s variables; -1 when it is not set. */
    static int indexOf(Container container, String name) {
        for (int i = 0; i < container.getEnv().size(); i++) {
            if (container.getEnv().get(i).getName().equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
