package io.rattan.node.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The options of {@code rattan put} that make the value an owned one, signed here with the owner's key. */
final class OwnedPutOptions {

    @Mixin
    OwnerOptions owner;

    @Option(names = "--if-seq", paramLabel = "N",
            description = "Compare-and-swap: store only if the value held has this sequence (with --owner-key).")
    String ifSeq;

    @Option(names = "--if-absent",
            description = "Compare-and-swap: store only if no value is held (with --owner-key).")
    boolean ifAbsent;

    boolean owned() {
        return owner.owned();
    }

    /** Whether a compare-and-swap was asked for. */
    boolean conditional() {
        return ifSeq != null || ifAbsent;
    }

    /** Why these options do not fit together, or null. */
    String problem(boolean withSecret) {
        if (!owned()) {
            return owner.valueId != null || owner.seq != null || ifSeq != null || ifAbsent
                    ? "--value-id, --seq, --if-seq and --if-absent need --owner-key" : null;
        }
        if (owner.valueId == null || owner.seq == null) {
            return "--owner-key needs --value-id and --seq";
        }
        if (withSecret) {
            return "an owned value is removed by its owner, not a secret: drop --secret";
        }
        if (ifSeq != null && ifAbsent) {
            return "give --if-seq or --if-absent, not both";
        }
        for (String n : new String[] {owner.valueId, owner.seq, ifSeq}) {
            if (n != null && OwnerOptions.unsigned(n) == null) {
                return "--value-id, --seq and --if-seq take an unsigned decimal number below 2^64, got '" + n + "'";
            }
        }
        return null;
    }
}
