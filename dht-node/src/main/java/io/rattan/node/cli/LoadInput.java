package io.rattan.node.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The lines of a {@code rattan load} file (or standard input), one at a time, as bytes: the file is streamed, never
 * held whole. Bytes, not text, so that a line that is not UTF-8 fails alone (as bad JSON) and a failed line can be
 * written back exactly as it was. A line is cut at {@code \n}; a {@code \r} before it is dropped. Not thread-safe.
 */
final class LoadInput implements Closeable {

    /** Longest line read: far above a 64 KiB value in base64; a longer line is junk, skipped and reported. */
    static final int LINE_BYTES_MAX = 1 << 20;

    /**
     * One line.
     *
     * @param number   its number in the file, from 1
     * @param raw      its bytes without the line end; empty when {@code overlong}
     * @param overlong it had more than {@link #LINE_BYTES_MAX} bytes (the rest was skipped)
     */
    record Line(long number, byte[] raw, boolean overlong) {

        /** Nothing but spaces and tabs: skipped, not counted (an NDJSON file may end with an empty line). */
        boolean blank() {
            if (overlong) {
                return false;
            }
            for (byte b : raw) {
                if (b != ' ' && b != '\t') {
                    return false;
                }
            }
            return true;
        }
    }

    private final InputStream in;
    private final boolean owned;
    private final long size;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    private long number;
    private volatile long bytesRead;

    private LoadInput(InputStream in, boolean owned, long size) {
        this.in = new BufferedInputStream(in, 1 << 16);
        this.owned = owned;
        this.size = size;
    }

    /** {@code -}: standard input (size unknown); else the file. */
    static LoadInput open(String name) throws IOException {
        if (name.equals("-")) {
            return new LoadInput(System.in, false, -1);
        }
        Path path = Path.of(name);
        long size = Files.isRegularFile(path) ? Files.size(path) : -1;
        return new LoadInput(Files.newInputStream(path), true, size);
    }

    /** The next line, or null at the end. */
    Line next() throws IOException {
        buffer.reset();
        boolean any = false;
        boolean overlong = false;
        int b;
        long consumed = 0;
        while ((b = in.read()) != -1) {
            any = true;
            consumed++;
            if (b == '\n') {
                break;
            }
            if (buffer.size() < LINE_BYTES_MAX) {
                buffer.write(b);
            } else {
                overlong = true;
            }
        }
        bytesRead += consumed;
        if (!any) {
            return null;
        }
        number++;
        byte[] raw = overlong ? new byte[0] : buffer.toByteArray();
        if (raw.length > 0 && raw[raw.length - 1] == '\r') {
            raw = Arrays.copyOf(raw, raw.length - 1);
        }
        return new Line(number, raw, overlong);
    }

    /** Bytes consumed so far; read by the progress thread. */
    long bytesRead() {
        return bytesRead;
    }

    /** The file's size in bytes, or -1 when it has none (standard input, a pipe). */
    long size() {
        return size;
    }

    @Override
    public void close() throws IOException {
        // Standard input belongs to the process, not to the load.
        if (owned) {
            in.close();
        }
    }
}
