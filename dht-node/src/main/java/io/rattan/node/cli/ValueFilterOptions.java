package io.rattan.node.cli;

import io.rattan.api.Bytes;
import io.rattan.api.OwnerStamp;
import io.rattan.api.ValueFilter;
import java.util.Base64;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine;

/** {@code --owner} and {@code --value-id}: the owner filter of {@code rattan get} and {@code rattan watch}. */
final class ValueFilterOptions {

    @Option(names = "--owner", paramLabel = "BASE64URL",
            description = "Only the values of this owner: its Ed25519 public key, 32 bytes in base64url without "
                    + "padding, as 'rattan keygen' prints it. The replicas filter, so no other value is paged through.")
    String owner;

    @Option(names = "--value-id", paramLabel = "N",
            description = "Only the owner's value of this id (unsigned decimal); with --owner.")
    String valueId;

    /** The options as a filter; a usage error of {@code cl} when one is malformed or the id is alone. */
    ValueFilter filter(CommandLine cl) {
        if (owner == null) {
            if (valueId != null) {
                throw new ParameterException(cl, "--value-id names one of an owner's values: use it with --owner");
            }
            return ValueFilter.NONE;
        }
        byte[] ownerKey;
        try {
            ownerKey = Base64.getUrlDecoder().decode(owner);
        } catch (IllegalArgumentException e) {
            ownerKey = new byte[0];
        }
        if (ownerKey.length != OwnerStamp.OWNER_BYTES || owner.endsWith("=")) {
            throw new ParameterException(cl, "--owner must be an Ed25519 public key, 32 bytes in "
                    + "base64url without padding, got '" + owner + "'");
        }
        Long id = valueId == null ? null : OwnerOptions.unsigned(valueId);
        if (valueId != null && id == null) {
            throw new ParameterException(cl, "--value-id must be an unsigned decimal number below "
                    + "2^64, got '" + valueId + "'");
        }
        return new ValueFilter(Bytes.wrap(ownerKey), id);
    }
}
