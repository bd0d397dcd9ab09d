package io.rattan.node;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import io.rattan.node.store.RocksDbStore;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.identity.NodeIdFile;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * A backup of a running node's data directory, taken through the admin route ({@code POST /admin/backup}): a new
 * directory that a node starts on as on its own, with the same id. It holds the node's id, a RocksDB checkpoint of
 * its store (a consistent copy as of the moment it is taken), the namespaces' definitions and the values the HTTP
 * gateway keeps alive. A disk namespace's own store is not in it: after a restore, repair refills it from the
 * namespace's other replicas, as it refills any store that missed writes (docs/deploy.md, "Backup and restore").
 * A backup that fails part way leaves nothing behind.
 */
final class NodeBackup {

    // Files being written (renamed into place when whole) are not part of what a node reads.
    private static final String PARTIAL_SUFFIX = ".tmp";

    private NodeBackup() {
    }

    /**
     * Writes the backup of the node on {@code dataDir}, whose store is {@code store}, to {@code target}: an absolute
     * path that does not exist yet, outside the data directory (symbolic links followed), whose parent exists. Run
     * where the store's work runs.
     *
     * @throws IllegalArgumentException   for a target that is not such a path
     * @throws FileAlreadyExistsException when the target exists
     * @throws IOException                when a file cannot be copied or the checkpoint written
     */
    static void take(Path dataDir, RocksDbStore store, Path target) throws IOException {
        if (!target.isAbsolute()) {
            throw new IllegalArgumentException("the backup's directory must be an absolute path, got " + target);
        }
        Path to = target.normalize();
        if (to.getParent() == null || !Files.isDirectory(to.getParent()) || to.getFileName() == null) {
            throw new IllegalArgumentException("the backup directory's parent must exist: " + to.getParent());
        }
        Path data = dataDir.toRealPath();
        if (to.getParent().toRealPath().resolve(to.getFileName()).startsWith(data)) {
            throw new IllegalArgumentException("the backup's directory must lie outside the data directory " + data);
        }
        if (Files.exists(to)) {
            throw new FileAlreadyExistsException(to.toString(), null, "a backup goes to a new directory");
        }
        Files.createDirectory(to);
        try {
            Files.copy(data.resolve(NodeIdFile.FILE_NAME), to.resolve(NodeIdFile.FILE_NAME));
            // The key keeps its owner-only permissions: a copy with the default ones would not be read back.
            Files.copy(data.resolve(NodeKeyFile.FILE_NAME), to.resolve(NodeKeyFile.FILE_NAME),
                    StandardCopyOption.COPY_ATTRIBUTES);
            Files.copy(data.resolve(NodeKeyFile.REQUIRED_MARK), to.resolve(NodeKeyFile.REQUIRED_MARK));
            store.checkpoint(to.resolve(RattanNode.STORE_DIR));
            copyFiles(data.resolve(RattanNode.NAMESPACES_DIR), to.resolve(RattanNode.NAMESPACES_DIR));
            copyFiles(data.resolve(RattanNode.PERMANENT_DIR), to.resolve(RattanNode.PERMANENT_DIR));
        } catch (IOException | RuntimeException e) {
            try {
                MoreFiles.deleteRecursively(to, RecursiveDeleteOption.ALLOW_INSECURE);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /**
     * Copies the whole regular files directly in {@code from}, if it exists, into {@code to}; not its subdirectories,
     * not files being written, nor those that went while it copied (their writers renamed or removed them).
     */
    private static void copyFiles(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            return;
        }
        List<Path> files;
        try (Stream<Path> listed = Files.list(from)) {
            files = listed.filter(f -> Files.isRegularFile(f) && !f.toString().endsWith(PARTIAL_SUFFIX)).toList();
        }
        Files.createDirectories(to);
        for (Path f : files) {
            try {
                Files.copy(f, to.resolve(f.getFileName()));
            } catch (NoSuchFileException gone) {
                // Renamed into another name (which a later backup takes) or removed: either way not to keep.
            }
        }
    }
}
