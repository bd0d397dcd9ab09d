package io.rattan.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The names a document may point at in the code: every type declared in the repository's Java sources (nested ones
 * included), and the text of the files that declare each, in which its methods are looked for.
 */
final class CodeNames {

    private static final Pattern TYPE = Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z]\\w*)");
    private static final Pattern CONSTANT = Pattern.compile("[A-Z][A-Z0-9_]*");

    private final Map<String, List<String>> sourcesByType = new HashMap<>();

    /** The types of every {@code *.java} file under {@code root} (build output excluded). */
    static CodeNames scan(Path root) {
        CodeNames names = new CodeNames();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .forEach(names::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    /** Names from given source texts, for the checks' own tests. */
    static CodeNames of(String... sources) {
        CodeNames names = new CodeNames();
        for (String s : sources) {
            names.addSource(s);
        }
        return names;
    }

    private void add(Path file) {
        try {
            addSource(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void addSource(String source) {
        Matcher m = TYPE.matcher(source);
        while (m.find()) {
            sourcesByType.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(source);
        }
    }

    boolean hasType(String name) {
        return sourcesByType.containsKey(name);
    }

    /**
     * Whether a file that declares {@code type} declares or calls {@code member}: a method or a record component, a
     * constant ({@code UPPER_CASE}, or an enum value), or a nested type.
     */
    boolean hasMember(String type, String member) {
        Pattern use;
        if (CONSTANT.matcher(member).matches()) {
            use = Pattern.compile("\\b" + Pattern.quote(member) + "\\s*[=(,;{]");
        } else if (Character.isUpperCase(member.charAt(0))) {
            use = Pattern.compile("\\b(?:class|interface|record|enum)\\s+" + Pattern.quote(member) + "\\b");
        } else {
            // A method called or declared, or a record component (an accessor).
            use = Pattern.compile("\\b" + Pattern.quote(member) + "\\s*\\(|\\w\\s+" + Pattern.quote(member) + "\\s*[,)]");
        }
        for (String source : sourcesByType.getOrDefault(type, List.of())) {
            if (use.matcher(source).find()) {
                return true;
            }
        }
        return false;
    }
}
