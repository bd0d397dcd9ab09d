package io.rattan.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Keeps the map true: {@code docs/architecture.md} stays short, and every class and {@code Class.method} it names (and
 * that {@code docs/node.md}, the reference it points to, names) exists in the repository's sources, so renaming or
 * removing one fails here until the documents follow.
 */
class ArchitectureDocTest {

    private static final int LINES_MAX = 300;
    /** RocksDB's types the reference names. */
    private static final Set<String> ROCKSDB = Set.of("WriteBatch", "SstFileManager");

    private static Path docs() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
    }

    private static String architecture() throws IOException {
        return Files.readString(docs().resolve("architecture.md"));
    }

    @Test
    void everyClassAndMethodTheMapNamesExists() throws IOException {
        CodeNames code = CodeNames.scan(docs().getParent());
        String map = architecture();
        assertThat(CodeReferences.in(map)).as("the map names code").hasSizeGreaterThan(100);
        assertThat(CodeReferences.missing(map, code)).as("names in architecture.md with no class or method").isEmpty();
    }

    @Test
    void everyClassAndMethodTheNodeReferenceNamesExists() throws IOException {
        CodeNames code = CodeNames.scan(docs().getParent());
        String reference = Files.readString(docs().resolve("node.md"));
        assertThat(CodeReferences.missing(reference, code, ROCKSDB)).as("names in node.md with no class or method")
                .isEmpty();
    }

    @Test
    void theMapIsShort() throws IOException {
        assertThat(architecture().lines().count()).isLessThanOrEqualTo(LINES_MAX);
    }

    @Test
    void aRenamedClassOrMethodIsCaught() {
        CodeNames code = CodeNames.of("final class Router {\n    boolean servedHere(Routed m) {\n    }\n"
                + "    record Progress(int awaited) {}\n}\n");
        String doc = "`Router`, `Router.servedHere`, `Router.Progress` and `Router.servedHere(m)` exist;\n"
                + "`Router.deliverHere`, `Routing` and `Routing.route(m)` do not; `OK` and `GET` are no types.\n"
                + "```\nNode.receive in a picture is not read\n```\n";

        assertThat(CodeReferences.in(doc)).containsExactly("Router", "Router.servedHere", "Router.Progress",
                "Router.deliverHere", "Routing", "Routing.route");
        assertThat(CodeReferences.missing(doc, code)).containsExactly("Router.deliverHere", "Routing",
                "Routing.route");
    }
}
