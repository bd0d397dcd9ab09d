package io.rattan.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.random.RandomGenerator;

/**
 * A 160-bit identifier on the ring of node ids and keys, read as 40 base-16 digits, most significant first.
 *
 * <p>Stored as three unsigned words so that ring arithmetic stays allocation-light: {@code hi} holds bits 159..96,
 * {@code mid} bits 95..32, {@code lo} bits 31..0 (only its low 32 bits are used). Immutable and thread-safe.
 */
public record Id(long hi, long mid, long lo) implements Comparable<Id> {

    /** Number of base-16 digits in an id. */
    public static final int DIGITS = 40;
    /** Number of bytes in an id. */
    public static final int BYTES = 20;
    public static final Id ZERO = new Id(0, 0, 0);
    public static final Id MAX = new Id(-1L, -1L, 0xFFFF_FFFFL);
    private static final HexFormat HEX = HexFormat.of();

    public Id {
        if ((lo & ~0xFFFF_FFFFL) != 0) {
            throw new IllegalArgumentException("lo word has bits above 32");
        }
    }

    /** Parses exactly 40 hex digits (either case). */
    public static Id fromHex(String hex) {
        if (hex == null || hex.length() != DIGITS) {
            throw new IllegalArgumentException("an id is exactly 40 hex digits");
        }
        for (int i = 0; i < DIGITS; i++) {
            if (Character.digit(hex.charAt(i), 16) < 0) {
                throw new IllegalArgumentException("not a hex digit at position " + i + ": '" + hex.charAt(i) + "'");
            }
        }
        return new Id(Long.parseUnsignedLong(hex.substring(0, 16), 16),
                Long.parseUnsignedLong(hex.substring(16, 32), 16),
                Long.parseLong(hex.substring(32, 40), 16));
    }

    /** Reads 20 big-endian bytes starting at {@code offset}. */
    public static Id fromBytes(byte[] b, int offset) {
        if (offset < 0 || b.length - offset < BYTES) {
            throw new IllegalArgumentException("an id needs 20 bytes");
        }
        long hi = 0;
        long mid = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | (b[offset + i] & 0xFF);
            mid = (mid << 8) | (b[offset + 8 + i] & 0xFF);
        }
        for (int i = 0; i < 4; i++) {
            lo = (lo << 8) | (b[offset + 16 + i] & 0xFF);
        }
        return new Id(hi, mid, lo);
    }

    public static Id fromBytes(byte[] b) {
        if (b.length != BYTES) {
            throw new IllegalArgumentException("an id is exactly 20 bytes, got " + b.length);
        }
        return fromBytes(b, 0);
    }

    /** The SHA-1 of the UTF-8 bytes of {@code name}: the key form {@code name:<text>} of the HTTP API. */
    public static Id ofName(String name) {
        return sha1(name.getBytes(StandardCharsets.UTF_8));
    }

    public static Id sha1(byte[] data) {
        try {
            return fromBytes(MessageDigest.getInstance("SHA-1").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }

    public static Id random(RandomGenerator random) {
        return new Id(random.nextLong(), random.nextLong(), random.nextLong() & 0xFFFF_FFFFL);
    }

    public byte[] toBytes() {
        byte[] b = new byte[BYTES];
        writeTo(b, 0);
        return b;
    }

    public void writeTo(byte[] b, int offset) {
        for (int i = 0; i < 8; i++) {
            b[offset + i] = (byte) (hi >>> (56 - 8 * i));
            b[offset + 8 + i] = (byte) (mid >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            b[offset + 16 + i] = (byte) (lo >>> (24 - 8 * i));
        }
    }

    public String toHex() {
        // Not String.format: every HTTP answer names its key, and formatting was 2 % of a 16-node cluster's CPU
        // under HTTP gets; HexFormat is 10x faster (docs/performance.md).
        return HEX.toHexDigits(hi) + HEX.toHexDigits(mid) + HEX.toHexDigits((int) lo);
    }

    /** The first 8 hex digits, for logs. */
    public String shortHex() {
        return toHex().substring(0, 8);
    }

    /** Digit {@code i} (0 = most significant), 0..15. */
    public int digit(int i) {
        if (i < 16) {
            return (int) (hi >>> (60 - 4 * i)) & 0xF;
        } else if (i < 32) {
            return (int) (mid >>> (60 - 4 * (i - 16))) & 0xF;
        } else if (i < DIGITS) {
            return (int) (lo >>> (28 - 4 * (i - 32))) & 0xF;
        }
        throw new IndexOutOfBoundsException("digit " + i);
    }

    /** Number of leading base-16 digits this id shares with {@code other} (40 when equal). */
    public int sharedPrefixLength(Id other) {
        long x = hi ^ other.hi;
        if (x != 0) {
            return Long.numberOfLeadingZeros(x) / 4;
        }
        x = mid ^ other.mid;
        if (x != 0) {
            return 16 + Long.numberOfLeadingZeros(x) / 4;
        }
        x = (lo ^ other.lo) << 32;
        if (x != 0) {
            return 32 + Long.numberOfLeadingZeros(x) / 4;
        }
        return DIGITS;
    }

    /** (this − other) mod 2^160: how far {@code other} lies counter-clockwise of this id. */
    public Id minus(Id other) {
        long l = lo - other.lo;
        long borrow = l < 0 ? 1 : 0;
        l &= 0xFFFF_FFFFL;
        long m = mid - other.mid - borrow;
        // Borrow out of mid when mid < other.mid + borrow, unsigned.
        long borrowM = Long.compareUnsigned(mid, other.mid) < 0
                || (mid == other.mid && borrow == 1) ? 1 : 0;
        long h = hi - other.hi - borrowM;
        return new Id(h, m, l);
    }

    /** (this + other) mod 2^160. */
    public Id plus(Id other) {
        long l = lo + other.lo;
        long carry = l >>> 32;
        l &= 0xFFFF_FFFFL;
        long m = mid + other.mid + carry;
        long carryM = Long.compareUnsigned(m, mid) < 0 || (carry == 1 && m == mid) ? 1 : 0;
        long h = hi + other.hi + carryM;
        return new Id(h, m, l);
    }

    /** Ring distance: min(|a−b|, 2^160 − |a−b|), as an unsigned 160-bit number. */
    public Id distanceTo(Id other) {
        Id cw = other.minus(this);
        Id ccw = this.minus(other);
        return cw.compareTo(ccw) <= 0 ? cw : ccw;
    }

    /**
     * True when this id is closer to {@code key} than {@code other} is; on equal distance the one clockwise of the
     * key (reached by going up from the key) wins, so every node agrees on a single root.
     */
    public boolean isCloserTo(Id key, Id other) {
        // Routing asks this for every neighbour at every hop: compared word by word, no distance is allocated.
        int c = Long.compareUnsigned(distanceWord(this, key, 0), distanceWord(other, key, 0));
        if (c == 0) {
            c = Long.compareUnsigned(distanceWord(this, key, 1), distanceWord(other, key, 1));
        }
        if (c == 0) {
            c = Long.compare(distanceWord(this, key, 2), distanceWord(other, key, 2));
        }
        if (c != 0) {
            return c < 0;
        }
        if (equals(other)) {
            return false;
        }
        return minus(key).compareTo(other.minus(key)) < 0;
    }

    /**
     * {@code a.minus(this).compareTo(b.minus(this))}, without allocating: which of {@code a} and {@code b} comes
     * first going clockwise (up) from this id.
     */
    public int compareClockwise(Id a, Id b) {
        int c = Long.compareUnsigned(offsetWord(a, this, 0), offsetWord(b, this, 0));
        if (c == 0) {
            c = Long.compareUnsigned(offsetWord(a, this, 1), offsetWord(b, this, 1));
        }
        if (c == 0) {
            c = Long.compare(offsetWord(a, this, 2), offsetWord(b, this, 2));
        }
        return c;
    }

    /** Word {@code word} (0 = hi, 1 = mid, 2 = lo) of {@code x.minus(from)}, computed as {@link #minus} does. */
    private static long offsetWord(Id x, Id from, int word) {
        long l = x.lo - from.lo;
        long borrow = l < 0 ? 1 : 0;
        if (word == 2) {
            return l & 0xFFFF_FFFFL;
        }
        long m = x.mid - from.mid - borrow;
        if (word == 1) {
            return m;
        }
        long borrowM = Long.compareUnsigned(x.mid, from.mid) < 0 || (x.mid == from.mid && borrow == 1) ? 1 : 0;
        return x.hi - from.hi - borrowM;
    }

    /** Word {@code word} (0 = hi, 1 = mid, 2 = lo) of {@code x.distanceTo(key)}, without allocating. */
    private static long distanceWord(Id x, Id key, int word) {
        long h = offsetWord(key, x, 0);
        long m = offsetWord(key, x, 1);
        long l = offsetWord(key, x, 2);
        // d = key − x is the distance when d <= 2^159, else the other way round, −d, is.
        boolean otherWay = h < 0 && !(h == Long.MIN_VALUE && m == 0 && l == 0);
        if (otherWay) {
            // −d mod 2^160: ones' complement plus one, the carry rippling up while the lower words are zero.
            long nl = (-l) & 0xFFFF_FFFFL;
            long nm = ~m + (l == 0 ? 1 : 0);
            long nh = ~h + (l == 0 && m == 0 ? 1 : 0);
            h = nh;
            m = nm;
            l = nl;
        }
        return word == 0 ? h : word == 1 ? m : l;
    }

    /** Compares as unsigned 160-bit numbers. */
    @Override
    public int compareTo(Id o) {
        int c = Long.compareUnsigned(hi, o.hi);
        if (c != 0) {
            return c;
        }
        c = Long.compareUnsigned(mid, o.mid);
        if (c != 0) {
            return c;
        }
        return Long.compare(lo, o.lo);
    }

    /** An approximation of this unsigned value as a double, for ranking progress in next-hop policies. */
    public double toDouble() {
        double two64 = 18446744073709551616.0;
        double h = hi >= 0 ? hi : (hi >>> 1) * 2.0 + (hi & 1);
        double m = mid >= 0 ? mid : (mid >>> 1) * 2.0 + (mid & 1);
        return (h * two64 + m) * 4294967296.0 + lo;
    }

    @Override
    public String toString() {
        return toHex();
    }
}
