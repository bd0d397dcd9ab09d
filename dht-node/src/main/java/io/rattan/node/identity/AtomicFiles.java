package io.rattan.node.identity;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Small files of a node's data directory written whole or not at all: a crash never leaves half of one. */
final class AtomicFiles {

    private AtomicFiles() {
    }

    /**
     * Writes {@code content} to {@code file} atomically and durably: to a sibling temporary file, forced to disk, put
     * in place, and the directory forced too. With {@code permissions} where the file system has POSIX permissions
     * (null: the defaults).
     *
     * @param replace whether an existing {@code file} is replaced; if not, one that exists (even one another process
     *                wrote meanwhile) fails the write with {@link FileAlreadyExistsException}
     */
    static void write(Path file, byte[] content, Set<PosixFilePermission> permissions, boolean replace)
            throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = createTemp(dir, file.getFileName() + ".", permissions);
        try {
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(content);
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                out.force(true);
            }
            if (replace) {
                moveReplacing(tmp, file);
            } else {
                linkOnce(tmp, file);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        forceDirectory(dir);
    }

    private static Path createTemp(Path dir, String prefix, Set<PosixFilePermission> permissions)
            throws IOException {
        if (permissions != null) {
            try {
                return Files.createTempFile(dir, prefix, ".tmp", PosixFilePermissions.asFileAttribute(permissions));
            } catch (UnsupportedOperationException e) {
                // Not a POSIX file system: the directory's own access rules apply.
            }
        }
        return Files.createTempFile(dir, prefix, ".tmp");
    }

    /** Puts {@code tmp} in place as {@code file} unless that exists. */
    private static void linkOnce(Path tmp, Path file) throws IOException {
        try {
            // A hard link fails when the name exists, atomically: two processes cannot both put theirs in place.
            Files.createLink(file, tmp);
        } catch (FileAlreadyExistsException e) {
            throw e;
        } catch (UnsupportedOperationException | IOException e) {
            // No hard links here: a move that refuses an existing name, checked just before it.
            Files.move(tmp, file);
        }
    }

    private static void moveReplacing(Path tmp, Path file) throws IOException {
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Makes a rename in {@code dir} durable; a directory that cannot be opened (not POSIX) needs nothing. */
    private static void forceDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Not a file system whose directories can be synced.
        }
    }
}
