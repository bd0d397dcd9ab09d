package io.rattan.node.identity;

import io.rattan.api.Id;
import io.rattan.core.id.NodeKey;
import io.rattan.core.util.Ed25519Pem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's key on disk: its Ed25519 private key as PKCS#8 PEM in {@code dataDir/node.key}, readable by its owner
 * only. The node's id is SHA-1 of the key's public half, and {@code node-id} ({@link NodeIdFile}) records it for
 * tools; the key rules where the two disagree. Public so that a harness can give a node its key before its first
 * start, in exactly the form the node reads.
 */
public final class NodeKeyFile {

    /** The file's name in a node's data directory. */
    public static final String FILE_NAME = "node.key";
    /**
     * Marks a data directory whose id is its key's (protocol 13 on): there a missing key is an error, never a reason to
     * draw a new one, as it is in a directory of the release before.
     */
    public static final String REQUIRED_MARK = "node.key.required";
    private static final Logger log = LoggerFactory.getLogger(NodeKeyFile.class);
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

    private NodeKeyFile() {
    }

    /**
     * Reads the key in {@code dataDir}, or draws one from {@code random} and writes it; then records its id in
     * {@code node-id}. A data directory of a release before protocol 13 has an id but no key: it gets a key, and so
     * a new id (logged), and the values it holds reach their new owners by repair. One marked {@link #REQUIRED_MARK}
     * without its key (a restore that left the key out, say) is an error: the node does not start as another.
     */
    public static NodeKey loadOrCreate(Path dataDir, RandomGenerator random) throws IOException {
        Path keyFile = dataDir.resolve(FILE_NAME);
        Path mark = dataDir.resolve(REQUIRED_MARK);
        Optional<NodeKey> had = read(keyFile);
        if (had.isEmpty() && Files.exists(mark)) {
            throw new IOException("the node key " + keyFile + " is missing, and this data directory's id is that "
                    + "key's: restore node.key from a backup of this node; or, to start it as a new node with a new "
                    + "id, delete " + mark);
        }
        NodeKey key = had.isPresent() ? had.get() : NodeKey.draw(random);
        if (had.isEmpty()) {
            write(keyFile, key);
        }
        Path idFile = dataDir.resolve(NodeIdFile.FILE_NAME);
        Optional<Id> recorded = NodeIdFile.read(idFile);
        if (recorded.isEmpty() || !recorded.get().equals(key.id())) {
            recorded.ifPresent(old -> log.warn("{}: the node's id is now {}, SHA-1 of its key {} (protocol 13); it "
                    + "was {}: the values this node holds move to their owners by repair", key.id().shortHex(),
                    key.id(), keyFile, old));
            NodeIdFile.write(idFile, key.id());
        }
        if (!Files.exists(mark)) {
            AtomicFiles.write(mark, ("this data directory's node id is the hash of " + FILE_NAME
                    + ", which it needs\n").getBytes(StandardCharsets.US_ASCII), null, true);
        }
        return key;
    }

    /**
     * The key in {@code file}, or empty if there is no such file.
     *
     * @throws IOException if the file cannot be read, holds no Ed25519 private key, or others may read or write it
     */
    public static Optional<NodeKey> read(Path file) throws IOException {
        return read(file, "the node key");
    }

    /** As {@link #read(Path)}, for a key file that {@code what} names in errors (e.g. "the CA key"). */
    public static Optional<NodeKey> read(Path file, String what) throws IOException {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        requireOwnerOnly(file, what);
        return Optional.of(NodeKey.ofSeed(Ed25519Pem.decode(Files.readAllBytes(file), file.toString())));
    }

    /**
     * Refuses a secret's file ({@code what}, e.g. "the node key") that others than its owner may read or write. As
     * PostgreSQL does for its key, a file owned by root may also be read (never written) by a group this process is
     * in: that is how Kubernetes mounts a Secret for a pod with an {@code fsGroup} (root, the pod's group, 0440).
     *
     * @throws IOException saying to {@code chmod 600} it
     */
    public static void requireOwnerOnly(Path file, String what) throws IOException {
        if (Files.getFileAttributeView(file, PosixFileAttributeView.class) != null) {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            boolean groupMayRead = perms.contains(PosixFilePermission.GROUP_READ)
                    && Integer.valueOf(0).equals(Files.getAttribute(file, "unix:uid"))
                    && ownGroups().contains(Files.getAttribute(file, "unix:gid"));
            if (perms.stream().anyMatch(p -> OTHERS.contains(p)
                    && !(p == PosixFilePermission.GROUP_READ && groupMayRead))) {
                throw new IOException(what + " " + file + " is open to others (" + PosixFilePermissions.toString(perms)
                        + "): chmod 600 it (or, owned by root, 640 with a group of this process's)");
            }
        }
    }

    /** This process's group ids, real and supplementary, from /proc (none where there is no /proc). */
    private static Set<Integer> ownGroups() {
        Set<Integer> out = new HashSet<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Gid:") || line.startsWith("Groups:")) {
                    for (String g : line.substring(line.indexOf(':') + 1).trim().split("\\s+")) {
                        if (!g.isEmpty()) {
                            out.add(Integer.parseInt(g));
                        }
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            return Set.of();
        }
        return out;
    }

    /**
     * Writes {@code key} to {@code file} atomically and durably, readable by its owner only.
     *
     * @throws FileAlreadyExistsException when {@code file} exists: a node's key is never replaced
     */
    public static void write(Path file, NodeKey key) throws IOException {
        AtomicFiles.write(file, Ed25519Pem.encode(key.seed()).getBytes(StandardCharsets.US_ASCII),
                PosixFilePermissions.fromString("rw-------"), false);
    }
}
