package io.rattan.docs;

import java.util.ArrayList;
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

    /** The references in {@code markdown} that name no type or member of {@code code}. */
    static List<String> missing(String markdown, CodeNames code) {
        List<String> missing = new ArrayList<>();
        for (String ref : in(markdown)) {
            int dot = ref.indexOf('.');
            String type = dot < 0 ? ref : ref.substring(0, dot);
            boolean found = code.hasType(type) && (dot < 0 || code.hasMember(type, ref.substring(dot + 1)));
            if (!found) {
                missing.add(ref);
            }
        }
        return missing;
    }
}
