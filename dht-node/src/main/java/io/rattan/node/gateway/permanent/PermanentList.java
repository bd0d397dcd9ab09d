package io.rattan.node.gateway.permanent;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.codec.MessageCodec;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway's permanent values on disk: one file per value in one directory, so that adding or dropping one rewrites
 * nothing else. A file is written whole to a temporary name, synced, and renamed into place, so a crash leaves
 * either the old state or the new one. File format 1: the magic {@code RPV1}, the key (20 bytes), the TTL in seconds
 * (i32), the binding's length (u8) and bytes, the value's length (i32) and bytes, and CRC32C of all that (i32). A
 * file that does not read back whole is set aside with a warning, never half-used.
 */
final class PermanentList {

    static final String SUFFIX = ".pv";
    private static final String TMP = ".tmp";
    private static final String DAMAGED = ".bad";
    private static final byte[] MAGIC = {'R', 'P', 'V', '1'};
    private static final int VALUE_BYTES_MAX = MessageCodec.VALUE_BYTES_MAX;
    private static final Logger log = LoggerFactory.getLogger(PermanentList.class);

    private final Path dir;

    PermanentList(Path dir) {
        this.dir = dir;
    }

    /**
     * Every value the directory holds (none when it does not exist), at most {@code max}. A damaged file is renamed
     * {@code .bad} (kept for a look, never read again); one left half-written by a crash ({@code .tmp}) is deleted.
     */
    List<KeptValue> load(int max) throws IOException {
        List<KeptValue> values = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return values;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.endsWith(SUFFIX + TMP)) {
                    Files.deleteIfExists(file);
                } else if (name.endsWith(SUFFIX) && values.size() < max) {
                    KeptValue v = read(file);
                    if (v != null) {
                        values.add(v);
                    }
                }
            }
        }
        return values;
    }

    /** Writes {@code v}, replacing its earlier file if any, durably. */
    void write(KeptValue v) throws IOException {
        Files.createDirectories(dir);
        Path target = dir.resolve(v.fileName());
        Path tmp = dir.resolve(v.fileName() + TMP);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(encode(v));
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncDirectory();
    }

    /** Drops {@code v}'s file; nothing when it has none. */
    void delete(KeptValue v) throws IOException {
        if (Files.deleteIfExists(dir.resolve(v.fileName()))) {
            syncDirectory();
        }
    }

    static byte[] encode(KeptValue v) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + v.value().length());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(MAGIC);
            out.write(v.key().toBytes());
            out.writeInt(v.ttlSeconds());
            out.writeByte(v.binding().length());
            out.write(v.binding().toByteArray());
            out.writeInt(v.value().length());
            out.write(v.value().toByteArray());
            CRC32C crc = new CRC32C();
            crc.update(bytes.toByteArray());
            out.writeInt((int) crc.getValue());
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** The value a file's bytes hold, or null when they are not a whole file of format 1. */
    static KeptValue decode(byte[] b) {
        ByteBuffer in = ByteBuffer.wrap(b);
        try {
            byte[] magic = new byte[MAGIC.length];
            in.get(magic);
            if (!java.util.Arrays.equals(magic, MAGIC)) {
                return null;
            }
            byte[] key = new byte[Id.BYTES];
            in.get(key);
            int ttl = in.getInt();
            byte[] binding = new byte[in.get() & 0xff];
            in.get(binding);
            int length = in.getInt();
            if (length < 0 || length > VALUE_BYTES_MAX || ttl <= 0) {
                return null;
            }
            byte[] value = new byte[length];
            in.get(value);
            int end = in.position();
            int stored = in.getInt();
            CRC32C crc = new CRC32C();
            crc.update(b, 0, end);
            if (stored != (int) crc.getValue() || in.hasRemaining()) {
                return null;
            }
            return new KeptValue(Id.fromBytes(key), Bytes.wrap(value), ttl, Bytes.wrap(binding));
        } catch (java.nio.BufferUnderflowException e) {
            return null;
        }
    }

    /** The value a file holds, or null (with a warning, and the file set aside) when it cannot be read whole. */
    private static KeptValue read(Path file) {
        try {
            KeptValue v = decode(Files.readAllBytes(file));
            if (v != null) {
                return v;
            }
            log.warn("permanent value file {} is damaged; it is set aside as {}{}", file, file.getFileName(), DAMAGED);
            Files.move(file, file.resolveSibling(file.getFileName() + DAMAGED), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("cannot read permanent value file {}; it is skipped", file, e);
        }
        return null;
    }

    private void syncDirectory() throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
