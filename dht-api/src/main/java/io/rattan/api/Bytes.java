package io.rattan.api;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable byte string with value equality, so records that hold bytes compare by content.
 * Thread-safe.
 */
public final class Bytes implements Comparable<Bytes> {

    public static final Bytes EMPTY = new Bytes(new byte[0]);
    private static final HexFormat HEX = HexFormat.of();

    private final byte[] data;

    private Bytes(byte[] data) {
        this.data = data;
    }

    /** Copies {@code data}. */
    public static Bytes of(byte[] data) {
        return data.length == 0 ? EMPTY : new Bytes(data.clone());
    }

    /** Copies {@code length} bytes of {@code data} from {@code offset}. */
    public static Bytes of(byte[] data, int offset, int length) {
        return length == 0 ? EMPTY : new Bytes(Arrays.copyOfRange(data, offset, offset + length));
    }

    /** Takes ownership of {@code data} without copying; the caller must not change it afterwards. */
    public static Bytes wrap(byte[] data) {
        return data.length == 0 ? EMPTY : new Bytes(data);
    }

    public static Bytes fromHex(String hex) {
        return wrap(HEX.parseHex(hex));
    }

    public static Bytes utf8(String s) {
        return wrap(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public int length() {
        return data.length;
    }

    public boolean isEmpty() {
        return data.length == 0;
    }

    public byte get(int i) {
        return data[i];
    }

    public byte[] toByteArray() {
        return data.clone();
    }

    /** Copies the bytes into {@code dst} at {@code offset}. */
    public void copyTo(byte[] dst, int offset) {
        System.arraycopy(data, 0, dst, offset, data.length);
    }

    public String toHex() {
        return HEX.formatHex(data);
    }

    public Bytes sha256() {
        return wrap(sha256(data));
    }

    public static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes b && Arrays.equals(data, b.data);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(data);
    }

    /** Unsigned lexicographic order. */
    @Override
    public int compareTo(Bytes o) {
        return Arrays.compareUnsigned(data, o.data);
    }

    @Override
    public String toString() {
        return data.length <= 32 ? toHex() : toHex().substring(0, 64) + "…(" + data.length + " bytes)";
    }
}
