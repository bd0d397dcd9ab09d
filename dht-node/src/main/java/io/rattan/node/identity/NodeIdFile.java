package io.rattan.node.identity;

import io.rattan.api.Id;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A node's id on disk, for tools: 40 hex digits in {@code dataDir/node-id}, kept in step with the node's key
 * ({@link NodeKeyFile}), whose hash the id is. Public so that a harness can read a node's id.
 */
public final class NodeIdFile {

    /** The file's name in a node's data directory. */
    public static final String FILE_NAME = "node-id";

    private NodeIdFile() {
    }

    /**
     * The id in {@code file}, or empty if there is no such file.
     *
     * @throws IOException if the file cannot be read or does not hold 40 hex digits
     */
    public static Optional<Id> read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        try {
            return Optional.of(Id.fromHex(text));
        } catch (IllegalArgumentException e) {
            throw new IOException("node id file " + file + " does not hold 40 hex digits: " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code id} to {@code file} atomically and durably (written to a sibling, forced to disk, then moved),
     * replacing what was there.
     */
    public static void write(Path file, Id id) throws IOException {
        AtomicFiles.write(file, (id.toHex() + "\n").getBytes(StandardCharsets.US_ASCII), null, true);
    }
}
