package io.rattan.node;

import io.rattan.core.id.Id;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * A node's identity on disk: 40 hex digits in {@code dataDir/node-id}. A node keeps its id across restarts, so that
 * the values it stores are still its to serve when it comes back. Public so that a harness can give a node its id
 * before its first start, in exactly the form the node reads.
 */
public final class NodeIdFile {

    /** The file's name in a node's data directory. */
    public static final String FILE_NAME = "node-id";

    private NodeIdFile() {
    }

    /**
     * Reads the id in {@code file}, or draws one from {@code random} and writes it atomically (a crash while writing
     * leaves no half-written file). A file that exists but does not hold an id is an error, never silently replaced:
     * a new id would orphan the node's data.
     */
    static Id loadOrCreate(Path file, RandomGenerator random) throws IOException {
        Optional<Id> had = read(file);
        if (had.isPresent()) {
            return had.get();
        }
        Id id = Id.random(random);
        write(file, id);
        return id;
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
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap((id.toHex() + "\n").getBytes(StandardCharsets.US_ASCII));
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
            out.force(true);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
