package io.rattan.node.cli;

import io.rattan.api.OwnerStamp;
import io.rattan.client.OwnerKey;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options that name an owner's value and the key that signs for it: {@code rattan put} and {@code rattan rm}. */
final class OwnerOptions {

    @Option(names = "--owner-key", paramLabel = "FILE",
            description = "The owner's key that signs ('rattan keygen'; PKCS#8 PEM or DER, or 32 raw bytes): the "
                    + "value is the owner's value --value-id under the key, replaced by a higher --seq.")
    Path ownerKey;

    @Option(names = "--value-id", paramLabel = "N", description = "The owner's id for the value (with --owner-key).")
    String valueId;

    @Option(names = "--seq", paramLabel = "N", description = "The version (with --owner-key).")
    String seq;

    boolean owned() {
        return ownerKey != null;
    }

    OwnerKey key() throws IOException {
        return OwnerKey.load(ownerKey);
    }

    /** The number, or null when it is not an unsigned decimal below 2^64. */
    static Long unsigned(String text) {
        try {
            return OwnerStamp.parseUnsigned(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
