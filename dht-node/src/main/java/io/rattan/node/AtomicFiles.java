package io.rattan.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
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
     * Writes {@code content} to {@code file} atomically and durably (to a sibling {@code .tmp}, forced to disk, then
     * moved over {@code file}), with {@code permissions} where the file system has POSIX permissions (null: the
     * defaults).
     */
    static void write(Path file, byte[] content, Set<PosixFilePermission> permissions) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (permissions == null) {
            Files.createFile(tmp);
        } else {
            try {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(permissions));
            } catch (UnsupportedOperationException e) {
                // Not a POSIX file system: the directory's own access rules apply.
                Files.createFile(tmp);
            }
        }
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.wrap(content);
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
