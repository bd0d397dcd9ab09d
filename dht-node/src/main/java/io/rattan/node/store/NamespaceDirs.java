package io.rattan.node.store;

import io.rattan.api.RoutingMode;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.NamespaceStores;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's namespaces on disk, under its data directory's {@code namespaces/}: the definitions it knows in
 * {@code definitions} (format {@code RNS1}: one line a namespace), and one RocksDB store per disk namespace in a
 * directory of its name, each with a store thread of its own ({@link OffLoopStore}), as the default namespace's.
 * A memory namespace's store is a {@link MemoryStore} on the node's loop: nothing of it reaches the disk, and a restart
 * empties it (its replicas elsewhere repair it back). A retired namespace's directory is deleted.
 */
public final class NamespaceDirs implements NamespaceStores, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NamespaceDirs.class);
    static final String DEFINITIONS = "definitions";
    private static final String FORMAT = "RNS1";

    private final Path dir;
    private final LongSupplier epochMillis;
    private final RocksDbStore.Settings settings;
    private final Executor loop;
    private final String name;
    private final Map<String, Opened> opened = new ConcurrentHashMap<>();

    private record Opened(RocksDbStore rocks, OffLoopStore offLoop) {
        /** False when the store thread did not stop: the store is then left open (and on disk), not freed under it. */
        boolean close() {
            if (offLoop.closeAndWait()) {
                rocks.close();
                return true;
            }
            return false;
        }
    }

    /**
     * @param dir         the data directory's {@code namespaces/}, made if missing
     * @param epochMillis the node's expiry clock, for the stores
     * @param settings    the stores' settings, as the default store's ({@code --fsync})
     * @param loop        hands work to the node's loop (store completions, durable syncs)
     * @param name        the node's name, for the store threads
     */
    public NamespaceDirs(Path dir, LongSupplier epochMillis, RocksDbStore.Settings settings, Executor loop,
                         String name) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.epochMillis = epochMillis;
        this.settings = settings;
        this.loop = loop;
        this.name = name;
    }

    /**
     * The saved definitions. A file that cannot be read is set aside ({@code definitions.damaged}) and the node starts
     * knowing none: its peers tell it every definition again when it joins. The stores of namespaces retired before
     * the last stop (whose deletion the stop cut short) are deleted here.
     */
    @Override
    public List<NamespaceDefinition> saved() {
        Path file = dir.resolve(DEFINITIONS);
        if (!Files.exists(file)) {
            return List.of();
        }
        List<NamespaceDefinition> all = read(file);
        all.stream().filter(NamespaceDefinition::retired).forEach(d -> deleteTree(dir.resolve(d.name())));
        return all;
    }

    private static List<NamespaceDefinition> read(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (lines.isEmpty() || !lines.get(0).equals(FORMAT)) {
                throw new IOException("not of format " + FORMAT);
            }
            List<NamespaceDefinition> all = new ArrayList<>();
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.split(" ");
                all.add(new NamespaceDefinition(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                        f[3].equals("memory"), Integer.parseInt(f[4]), Integer.parseInt(f[5]), RoutingMode.parse(f[6]),
                        f[7].equals("retired")));
            }
            return all;
        } catch (IOException | RuntimeException e) {
            log.error("cannot read the namespaces' definitions in {} ({}): set aside, the node's peers tell them again",
                    file, e.toString());
            try {
                Files.move(file, file.resolveSibling(DEFINITIONS + ".damaged"), StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException moved) {
                throw new StoreException("cannot set aside " + file + ": " + moved.getMessage(), moved);
            }
            return new ArrayList<>();
        }
    }

    @Override
    public void save(List<NamespaceDefinition> definitions) {
        StringBuilder text = new StringBuilder(FORMAT).append('\n');
        for (NamespaceDefinition d : definitions) {
            text.append(String.join(" ", d.name(), Integer.toString(d.replicas()), Integer.toString(d.writeQuorum()),
                    d.inMemory() ? "memory" : "disk", Integer.toString(d.ttlSecondsMax()),
                    Integer.toString(d.valueBytesMax()), d.routing().label(), d.retired() ? "retired" : "live"))
                    .append('\n');
        }
        try {
            Path tmp = dir.resolve(DEFINITIONS + ".tmp");
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                out.write(ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)));
                // On disk before it replaces the old file: a crash leaves the old one or the new one, whole.
                out.force(true);
            }
            Files.move(tmp, dir.resolve(DEFINITIONS), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new StoreException("cannot save the namespaces' definitions in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Store open(NamespaceDefinition d) {
        if (d.inMemory()) {
            return new MemoryStore(epochMillis);
        }
        RocksDbStore rocks = RocksDbStore.open(dir.resolve(d.name()), epochMillis, settings, loop);
        OffLoopStore offLoop = new OffLoopStore(rocks, loop, OffLoopStore.QUEUE_MAX, name + "-" + d.name());
        opened.put(d.name(), new Opened(rocks, offLoop));
        return offLoop;
    }

    @Override
    public void drop(String namespace) {
        Opened o = opened.remove(namespace);
        // Off the loop: the store thread may still finish a task, whose completion the loop must be free to run.
        Thread t = new Thread(() -> {
            if (o == null || o.close()) {
                deleteTree(dir.resolve(namespace));
            }
        }, "rattan-drop-" + name + "-" + namespace);
        t.setDaemon(true);
        t.start();
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            log.warn("cannot delete the retired namespace's store {}: {}", root, e.toString());
        }
    }

    /** Closes every namespace store (once the node's loop has stopped). */
    @Override
    public void close() {
        opened.values().forEach(Opened::close);
        opened.clear();
    }
}
