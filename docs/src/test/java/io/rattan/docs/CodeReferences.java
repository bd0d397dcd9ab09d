package io.rattan.docs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The code a Markdown document names in its inline code spans: {@code Type} (a CamelCase name) and {@code Type.member}
 * (a method, or a nested type), also at the start of a longer span such as {@code Type.method(args)}. Fenced blocks
 * (pictures, shell sessions) are not read.
 */
final class CodeReferences {

    private static final Pattern SPAN = Pattern.compile("`([^`\\n]+)`");
    /** A type name: an upper-case letter, then a lower-case one (so {@code OK}, {@code GET} are not types). */
    private static final Pattern REFERENCE = Pattern.compile("^([A-Z][a-z]\\w*)(?:\\.([A-Za-z]\\w*))?(?:\\(.*)?$");

    private CodeReferences() {
    }

    /** Every distinct reference in {@code markdown}, in order of first appearance. */
    static Set<String> in(String markdown) {
        Set<String> refs = new LinkedHashSet<>();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher span = SPAN.matcher(line);
            while (span.find()) {
                Matcher ref = REFERENCE.matcher(span.group(1).strip());
                if (ref.matches()) {
                    refs.add(ref.group(2) == null ? ref.group(1) : ref.group(1) + "." + ref.group(2));
                }
            }
        }
        return refs;
    }

    /**
     * The references in {@code markdown} that name no type or member of {@code code}, nor a JDK class (and method)
     * of {@link #JDK_PACKAGES}, nor one of {@code external} (types of libraries the docs name, e.g. RocksDB's).
     */
    static List<String> missing(String markdown, CodeNames code, Set<String> external) {
        List<String> missing = new ArrayList<>();
        for (String ref : in(markdown)) {
            int dot = ref.indexOf('.');
            String type = dot < 0 ? ref : ref.substring(0, dot);
            String member = dot < 0 ? null : ref.substring(dot + 1);
            boolean found = code.hasType(type) ? member == null || code.hasMember(type, member)
                    : external.contains(type) || inJdk(type, member);
            if (!found) {
                missing.add(ref);
            }
        }
        return missing;
    }

    static List<String> missing(String markdown, CodeNames code) {
        return missing(markdown, code, Set.of());
    }

    /** Where a JDK class a document names may live. */
    static final List<String> JDK_PACKAGES = List.of("java.lang", "java.util", "java.util.concurrent",
            "java.util.random", "java.time", "java.security", "java.nio.file", "java.io");

    private static boolean inJdk(String type, String member) {
        for (String pkg : JDK_PACKAGES) {
            try {
                Class<?> c = Class.forName(pkg + "." + type);
                return member == null || Arrays.stream(c.getMethods()).anyMatch(m -> m.getName().equals(member));
            } catch (ClassNotFoundException e) {
                // not in this package
            }
        }
        return false;
    }
}
