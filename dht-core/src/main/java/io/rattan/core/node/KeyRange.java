package io.rattan.core.node;

import io.rattan.api.Id;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A clockwise arc of the key ring, [{@code lo}, {@code hi}); {@code lo == hi} is the whole ring. Range-digest repair
 * compares such arcs part by part.
 */
record KeyRange(Id lo, Id hi) {

    private static final BigInteger RING = BigInteger.ONE.shiftLeft(160);

    static KeyRange whole() {
        return new KeyRange(Id.ZERO, Id.ZERO);
    }

    boolean isWhole() {
        return lo.equals(hi);
    }

    /** How far clockwise of {@code lo} the key lies. */
    Id offset(Id key) {
        return key.minus(lo);
    }

    boolean contains(Id key) {
        return isWhole() || offset(key).compareTo(hi.minus(lo)) < 0;
    }

    /**
     * An arc within {@code other} that holds every key the two share: their intersection, or, where it has two pieces,
     * {@code other} itself; null when they share none.
     */
    KeyRange overlap(KeyRange other) {
        if (isWhole()) {
            return other;
        }
        if (other.isWhole()) {
            return this;
        }
        boolean startsInside = contains(other.lo);
        if (!startsInside && !other.contains(lo)) {
            return null;
        }
        Id from = startsInside ? other.lo : lo;
        Id last = other.hi.minus(new Id(0, 0, 1));
        Id to = contains(last) ? other.hi : hi;
        return new KeyRange(from, to);
    }

    /**
     * The arc cut into {@code n} parts of (nearly) equal width, in clockwise order; parts of an arc narrower than
     * {@code n} keys may be empty.
     */
    List<KeyRange> split(int n) {
        BigInteger width = isWhole() ? RING : toBig(hi.minus(lo));
        BigInteger base = toBig(lo);
        List<KeyRange> parts = new ArrayList<>(n);
        Id from = lo;
        for (int i = 1; i <= n; i++) {
            Id to = i == n ? hi : fromBig(base.add(width.multiply(BigInteger.valueOf(i)).divide(BigInteger.valueOf(n)))
                    .mod(RING));
            parts.add(new KeyRange(from, to));
            from = to;
        }
        return parts;
    }

    /**
     * The part of {@code parts} (from {@link #split}) that holds {@code key}, found by binary search on offsets;
     * -1 when the key lies outside this arc.
     */
    static int partOf(List<KeyRange> parts, Id key, Id[] partEnds) {
        Id off = key.minus(parts.get(0).lo());
        int low = 0;
        int high = partEnds.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (off.compareTo(partEnds[mid]) < 0) {
                high = mid - 1;
            } else {
                low = mid + 1;
            }
        }
        if (low < partEnds.length) {
            return low;
        }
        // A whole ring's last part ends at the largest id, which it holds too.
        return partEnds[partEnds.length - 1].equals(Id.MAX) ? partEnds.length - 1 : -1;
    }

    /**
     * The offsets from {@code parts.get(0).lo()} at which each part ends, for {@link #partOf}; the last of a whole
     * ring is the largest id, so every key falls in some part.
     */
    static Id[] partEnds(List<KeyRange> parts) {
        Id start = parts.get(0).lo();
        Id[] ends = new Id[parts.size()];
        for (int i = 0; i < ends.length; i++) {
            Id end = parts.get(i).hi().minus(start);
            ends[i] = end.equals(Id.ZERO) && i == ends.length - 1 ? Id.MAX : end;
        }
        return ends;
    }

    private static BigInteger toBig(Id id) {
        return new BigInteger(1, id.toBytes());
    }

    private static Id fromBig(BigInteger v) {
        byte[] raw = v.toByteArray();
        byte[] b = new byte[Id.BYTES];
        int n = Math.min(raw.length, Id.BYTES);
        System.arraycopy(raw, raw.length - n, b, Id.BYTES - n, n);
        return Id.fromBytes(b);
    }
}
