package io.rattan.node.cli;

import io.rattan.client.OwnerKey;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options of {@code rattan put} that make the value an owned one, signed here with the owner's key. */
final class OwnedPutOptions {

    @Option(names = "--owner-key", paramLabel = "FILE",
            description = "Put an owned value, signed with this owner key ('rattan keygen'; PKCS#8 PEM or DER, or 32 "
                    + "raw bytes). One value per (owner, value id) under a key; a higher --seq replaces a lower one. "
                    + "--ttl sets the signed expiry.")
    Path ownerKey;

    @Option(names = "--value-id", paramLabel = "N", description = "The owner's id for the value (with --owner-key).")
    String valueId;

    @Option(names = "--seq", paramLabel = "N", description = "The value's version (with --owner-key).")
    String seq;

    @Option(names = "--if-seq", paramLabel = "N",
            description = "Compare-and-swap: store only if the value held has this sequence (with --owner-key).")
    String ifSeq;

    @Option(names = "--if-absent",
            description = "Compare-and-swap: store only if no value is held (with --owner-key).")
    boolean ifAbsent;

    boolean owned() {
        return ownerKey != null;
    }

    /** Why these options do not fit together, or null. */
    String problem(boolean withSecret) {
        if (!owned()) {
            return valueId != null || seq != null || ifSeq != null || ifAbsent
                    ? "--value-id, --seq, --if-seq and --if-absent need --owner-key" : null;
        }
        if (valueId == null || seq == null) {
            return "--owner-key needs --value-id and --seq";
        }
        if (withSecret) {
            return "an owned value is removed by its owner, not a secret: drop --secret";
        }
        if (ifSeq != null && ifAbsent) {
            return "give --if-seq or --if-absent, not both";
        }
        for (String n : new String[] {valueId, seq, ifSeq}) {
            if (n != null && unsigned(n) == null) {
                return "--value-id, --seq and --if-seq take an unsigned decimal number below 2^64, got '" + n + "'";
            }
        }
        return null;
    }

    OwnerKey key() throws IOException {
        return OwnerKey.load(ownerKey);
    }

    /** The number, or null when it is not an unsigned decimal below 2^64. */
    static Long unsigned(String text) {
        try {
            return text.isEmpty() || text.charAt(0) == '+' ? null : Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
