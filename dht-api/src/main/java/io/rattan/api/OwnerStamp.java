package io.rattan.api;

/**
 * What makes a value owned: the owner's Ed25519 public key, the value id the owner chose, the sequence, the absolute
 * expiry and the owner's signature over {@code SignedBytes}. The value id and the sequence are unsigned 64-bit
 * numbers held in a {@code long}: compare them with {@link Long#compareUnsigned}.
 *
 * @param owner            the owner's public key, 32 bytes
 * @param valueId          the owner's id for the value (unsigned)
 * @param seq              the version (unsigned); a higher one replaces a lower one
 * @param expiresAtSeconds the signed expiry, Unix seconds
 * @param signature        Ed25519 signature, 64 bytes
 */
public record OwnerStamp(Bytes owner, long valueId, long seq, long expiresAtSeconds, Bytes signature) {

    public static final int OWNER_BYTES = 32;
    public static final int SIGNATURE_BYTES = 64;
    /** The latest expiry whose milliseconds fit a {@code long}. */
    public static final long EXPIRES_AT_SECONDS_MAX = Long.MAX_VALUE / 1000;

    public OwnerStamp {
        if (owner == null || owner.length() != OWNER_BYTES) {
            throw new IllegalArgumentException("an owner key is 32 bytes");
        }
        if (signature == null || signature.length() != SIGNATURE_BYTES) {
            throw new IllegalArgumentException("a signature is 64 bytes");
        }
        if (expiresAtSeconds < 0 || expiresAtSeconds > EXPIRES_AT_SECONDS_MAX) {
            throw new IllegalArgumentException("expiry must be 0.." + EXPIRES_AT_SECONDS_MAX
                    + " Unix seconds, got " + expiresAtSeconds);
        }
    }

    /** The expiry in epoch milliseconds, as the store keeps it. */
    public long expiresAtMillis() {
        return expiresAtSeconds * 1000L;
    }

    /**
     * A value id, sequence or expiry as HTTP and the command line give it: an unsigned decimal number below 2^64,
     * digits only (no sign).
     *
     * @throws NumberFormatException for anything else
     */
    public static long parseUnsigned(String text) {
        if (text.isEmpty() || text.charAt(0) == '+') {
            throw new NumberFormatException("not an unsigned decimal number: '" + text + "'");
        }
        return Long.parseUnsignedLong(text);
    }
}
