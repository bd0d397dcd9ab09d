package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.client.OwnerKey;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code rattan rm}: removes one value, presenting its secret, or an owner's value, signed with the owner's key. */
@Command(name = "rm",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Removes one value from a key, presenting the secret it was put with; or, with --owner-key, "
                + "the owner's value --value-id, signed here with a --seq above the value's. The replicas keep a "
                + "tombstone for --ttl, so that a replica that missed the remove cannot bring the value back.",
            "Exits 1 when no replica held the value, the secret is wrong, or (owned) a sequence at or above --seq "
                + "is held."},
        footer = {"", "Example: rattan rm name:greeting "
                + "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9 --secret s3cret",
            "Owned:   rattan rm name:status --owner-key owner.pem --value-id 1 --seq 8"})
final class RmCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private LoggingOptions logging;

    @Mixin
    GatewayOptions gateway;

    @Parameters(index = "0", paramLabel = "KEY", converter = Converters.KeyConverter.class,
            description = "40 hex digits, or name:<text> for the SHA-1 of the text.")
    Id key;

    @Parameters(index = "1", paramLabel = "VALUE_HASH", arity = "0..1", converter = Converters.ValueHashConverter.class,
            description = "The value's SHA-256 in 64 hex digits, as put and get print it (not with --owner-key).")
    Bytes valueHash;

    @Option(names = "--secret", paramLabel = "SECRET", description = "The secret the value was put with.")
    String secret;

    @Option(names = "--legacy-secret", description = "For a value put with --secret before 7 December 2026, which is "
            + "bound to the secret itself: send the secret, which every node on the remove's path then sees, instead "
            + "of the value's remove proof.")
    boolean legacySecret;

    @Mixin
    OwnerOptions owner;

    @Option(names = "--ttl", paramLabel = "SECONDS",
            description = "How long the tombstone lasts; at least the value's remaining TTL. "
                    + "The default is the default maximum TTL (7 days).")
    int ttlSeconds = NodeConfig.defaults().ttlSecondsMax();

    @Override
    public Integer call() throws IOException {
        if (ttlSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--ttl must be at least 1 second, got " + ttlSeconds);
        }
        if (owner.owned()) {
            if (legacySecret) {
                throw new ParameterException(spec.commandLine(), "--legacy-secret is for a value put with --secret");
            }
            return removeOwned();
        }
        if (valueHash == null || secret == null || owner.valueId != null || owner.seq != null) {
            throw new ParameterException(spec.commandLine(), "give VALUE_HASH and --secret, or --owner-key with "
                    + "--value-id and --seq");
        }
        if (secret.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--secret must not be empty");
        }
        logging.apply(Level.WARN);
        boolean removed;
        try (RattanClient client = gateway.client()) {
            byte[] sent = secret.getBytes(StandardCharsets.UTF_8);
            removed = legacySecret ? client.removeLegacySync(key, valueHash, sent, Duration.ofSeconds(ttlSeconds))
                    : client.removeSync(key, valueHash, sent, Duration.ofSeconds(ttlSeconds));
        } catch (RattanException e) {
            if (e.status() == Status.FORBIDDEN) {
                spec.commandLine().getErr().println("refused: the secret does not match the one the value was put "
                        + "with (or it was put without one" + (legacySecret ? ")" : "; a value put with this secret "
                        + "before 7 December 2026 is removed with --legacy-secret)"));
                return RattanCli.EXIT_FAILED;
            }
            throw e;
        }
        if (!removed) {
            spec.commandLine().getErr().println("not found: no replica holds " + valueHash.toHex() + " under "
                    + key.toHex());
            return RattanCli.EXIT_FAILED;
        }
        spec.commandLine().getOut().println("removed " + valueHash.toHex() + " from " + key.toHex());
        return 0;
    }

    /** The owner's signed remove: a tombstone of sequence --seq in the value's place, until --ttl from now. */
    private int removeOwned() throws IOException {
        if (valueHash != null || secret != null || owner.valueId == null || owner.seq == null) {
            throw new ParameterException(spec.commandLine(), "--owner-key takes --value-id and --seq, and no "
                    + "VALUE_HASH or --secret");
        }
        Long id = OwnerOptions.unsigned(owner.valueId);
        Long s = OwnerOptions.unsigned(owner.seq);
        if (id == null || s == null) {
            throw new ParameterException(spec.commandLine(), "--value-id and --seq take an unsigned decimal number "
                    + "below 2^64");
        }
        OwnerKey signer = owner.key();
        logging.apply(Level.WARN);
        String what = "value " + owner.valueId + " of owner " + signer.publicKeyBase64Url() + " under " + key.toHex();
        try (RattanClient client = gateway.client()) {
            int replicas = client.removeOwnedSync(key, signer, id, s, Instant.now().plusSeconds(ttlSeconds));
            spec.commandLine().getOut().println("removed " + what + " (sequence " + owner.seq + ", on " + replicas
                    + " replicas)");
            return 0;
        } catch (RattanException e) {
            if (e.status() == Status.CONFLICT || e.status() == Status.FORBIDDEN) {
                spec.commandLine().getErr().println("refused: " + e.getMessage());
                return RattanCli.EXIT_FAILED;
            }
            throw e;
        }
    }
}
