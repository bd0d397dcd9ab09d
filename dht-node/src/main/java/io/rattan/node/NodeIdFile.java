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
import java.util.random.RandomGenerator;

/**
 * A node's identity on disk: 40 hex digits in {@code dataDir/node-id}. A node keeps its id across restarts, so that
 * the values it stores are still its to serve when it comes back.
 */
final class NodeIdFile {

    static final String FILE_NAME = "node-id";

    private NodeIdFile() {
    }

    /**
     * Reads the id in {@code file}, or draws one from {@code random} and writes it atomically (a crash while writing
     * leaves no half-written file). A file that exists but does not hold an id is an error, never silently replaced:
     * a new id would orphan the node's data.
     */
    static Id loadOrCreate(Path file, RandomGenerator random) throws IOException {
        if (Files.exists(file)) {
            String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
            try {
                return Id.fromHex(text);
            } catch (IllegalArgumentException e) {
                throw new IOException("node id file " + file + " does not hold 40 hex digits: " + e.getMessage(), e);
            }
        }
        Id id = Id.random(random);
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
        return id;
    }
}
