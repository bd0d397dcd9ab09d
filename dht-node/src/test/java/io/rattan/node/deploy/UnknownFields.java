package io.rattan.node.deploy;

import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The fields of a manifest that its model does not know: fabric8's model classes collect every field they have no
 * property for into {@code additionalProperties}, so a typo ({@code readinesProbe}) or a field put at the wrong level
 * is one of them. Also the quantities that do not parse ({@code memory: 2GB}).
 */
final class UnknownFields {

    private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model";
    private static final int DEPTH_MAX = 64;

    private UnknownFields() {
    }

    /** Where each unknown field or bad quantity is, as a path from {@code model} ({@code .spec.template...}). */
    static List<String> in(Object model) {
        List<String> found = new ArrayList<>();
        walk(model, "", found, 0);
        return found;
    }

    private static void walk(Object value, String path, List<String> found, int depth) {
        if (depth > DEPTH_MAX) {
            throw new AssertionError("the model is deeper than " + DEPTH_MAX + " at " + path);
        }
        if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                walk(list.get(i), path + "[" + i + "]", found, depth + 1);
            }
        } else if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> walk(v, path + "." + k, found, depth + 1));
        } else if (value instanceof Quantity q) {
            try {
                Quantity.getAmountInBytes(q);
            } catch (RuntimeException e) {
                found.add(path + " (the quantity '" + q + "' does not parse: " + e.getMessage() + ")");
            }
            unknown(q, path, found);
        } else if (value != null && value.getClass().getName().startsWith(MODEL_PACKAGE)) {
            unknown(value, path, found);
            List<Method> getters = new ArrayList<>();
            for (Method m : value.getClass().getMethods()) {
                if (isGetter(m)) {
                    getters.add(m);
                }
            }
            getters.sort(Comparator.comparing(Method::getName));
            for (Method m : getters) {
                walk(get(m, value), path + "." + property(m), found, depth + 1);
            }
        }
    }

    private static void unknown(Object model, String path, List<String> found) {
        try {
            Object extra = model.getClass().getMethod("getAdditionalProperties").invoke(model);
            if (extra instanceof Map<?, ?> map) {
                map.keySet().forEach(k -> found.add(path + "." + k));
            }
        } catch (NoSuchMethodException e) {
            // IntOrString and its kind hold a value, no fields.
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new AssertionError("cannot read " + model.getClass().getName() + ".getAdditionalProperties", e);
        }
    }

    private static boolean isGetter(Method m) {
        return m.getParameterCount() == 0 && m.getName().startsWith("get") && !Modifier.isStatic(m.getModifiers())
                && m.getDeclaringClass() != Object.class && !m.getName().equals("getAdditionalProperties");
    }

    private static Object get(Method m, Object target) {
        try {
            return m.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new AssertionError("cannot call " + m, e);
        }
    }

    private static String property(Method getter) {
        String name = getter.getName().substring(3);
        return name.isEmpty() ? name : Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }
}
