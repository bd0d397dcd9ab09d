package io.rattan.node;

import io.rattan.node.store.RocksDbStore;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * A backup of a running node's data directory, taken through the admin route ({@code POST /admin/backup}): a new
 * directory that a node starts on as on its own, with the same id. It holds the node's id, a RocksDB checkpoint of
 * its store (a consistent copy as of the moment it is taken), the namespaces' definitions and the values the HTTP
 * gateway keeps alive. A disk namespace's own store is not in it: after a restore, repair refills it from the
 * namespace's other replicas, as it refills any store that missed writes (docs/deploy.md, "Backup and restore").
 */
final class NodeBackup {

    private NodeBackup() {
    }

    /**
     * Writes the backup of the node on {@code dataDir}, whose store is {@code store}, to {@code target}: an absolute
     * path that does not exist yet, outside the data directory, whose parent exists. Run where the store's work runs.
     *
     * @throws IllegalArgumentException   for a target that is not such a path
     * @throws FileAlreadyExistsException when the target exists
     * @throws IOException                when a file cannot be copied or the checkpoint written
     */
    static void take(Path dataDir, RocksDbStore store, Path target) throws IOException {
        Path data = dataDir.toAbsolutePath().normalize();
        if (!target.isAbsolute()) {
            throw new IllegalArgumentException("the backup's directory must be an absolute path, got " + target);
        }
        Path to = target.normalize();
        if (to.startsWith(data)) {
            throw new IllegalArgumentException("the backup's directory must lie outside the data directory " + data);
        }
        if (Files.exists(to)) {
            throw new FileAlreadyExistsException(to.toString(), null, "a backup goes to a new directory");
        }
        if (to.getParent() == null || !Files.isDirectory(to.getParent())) {
            throw new IllegalArgumentException("the backup directory's parent must exist: " + to.getParent());
        }
        Files.createDirectory(to);
        Files.copy(data.resolve(NodeIdFile.FILE_NAME), to.resolve(NodeIdFile.FILE_NAME));
        store.checkpoint(to.resolve(RattanNode.STORE_DIR));
        copyFiles(data.resolve(RattanNode.NAMESPACES_DIR), to.resolve(RattanNode.NAMESPACES_DIR));
        copyFiles(data.resolve(RattanNode.PERMANENT_DIR), to.resolve(RattanNode.PERMANENT_DIR));
    }

    /** Copies the regular files directly in {@code from}, if it exists, into {@code to}; not its subdirectories. */
    private static void copyFiles(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            return;
        }
        List<Path> files;
        try (Stream<Path> listed = Files.list(from)) {
            files = listed.filter(Files::isRegularFile).toList();
        }
        Files.createDirectories(to);
        for (Path f : files) {
            Files.copy(f, to.resolve(f.getFileName()));
        }
    }
}
