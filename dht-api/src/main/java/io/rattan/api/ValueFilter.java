package io.rattan.api;

/**
 * Which values of a key a get wants: all of them ({@link #NONE}), those of one owner, or one owner's value of one id
 * (protocol version 9). The replica that reads its store applies it, so a page of a filtered get holds only matching
 * values and its placemark continues among them; an unowned value never matches an owner.
 *
 * @param owner   the owner's Ed25519 public key, 32 bytes; {@link Bytes#EMPTY}: no filter
 * @param valueId the owner's value id (unsigned); null: every value of the owner
 */
public record ValueFilter(Bytes owner, Long valueId) {

    /** No filter: every value of the key. */
    public static final ValueFilter NONE = new ValueFilter(Bytes.EMPTY, null);

    /**
     * @throws IllegalArgumentException for an owner that is not 32 bytes, or a value id without an owner
     */
    public ValueFilter {
        if (owner == null) {
            throw new IllegalArgumentException("null owner: use Bytes.EMPTY for no filter");
        }
        if (owner.isEmpty() && valueId != null) {
            throw new IllegalArgumentException("a value id filter needs an owner: value ids are the owner's own");
        }
        if (!owner.isEmpty() && owner.length() != OwnerStamp.OWNER_BYTES) {
            throw new IllegalArgumentException("an owner key is " + OwnerStamp.OWNER_BYTES + " bytes, got "
                    + owner.length());
        }
    }

    /** The values of {@code owner} (32 bytes). */
    public static ValueFilter owner(Bytes owner) {
        return new ValueFilter(owner, null);
    }

    /** The value {@code valueId} (unsigned) of {@code owner} (32 bytes). */
    public static ValueFilter value(Bytes owner, long valueId) {
        return new ValueFilter(owner, valueId);
    }

    /** Whether this filter lets every value through. */
    public boolean isNone() {
        return owner.isEmpty();
    }

    /** Whether a value with {@code stamp} (null: unowned) passes. */
    public boolean matches(OwnerStamp stamp) {
        if (owner.isEmpty()) {
            return true;
        }
        return stamp != null && stamp.owner().equals(owner) && (valueId == null || stamp.valueId() == valueId);
    }
}
