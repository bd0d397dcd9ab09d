package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Status;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.util.Bytes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code rattan rm}: removes one value, presenting its secret. */
@Command(name = "rm",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Removes one value from a key, presenting the secret it was put with. The replicas keep a "
                + "tombstone for --ttl, so that a replica that missed the remove cannot bring the value back.",
            "Exits 1 when no replica held the value or the secret is wrong."},
        footer = {"", "Example: rattan rm name:greeting "
                + "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9 --secret s3cret"})
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

    @Parameters(index = "1", paramLabel = "VALUE_HASH", converter = Converters.ValueHashConverter.class,
            description = "The value's SHA-256 in 64 hex digits, as put and get print it.")
    Bytes valueHash;

    @Option(names = "--secret", paramLabel = "SECRET", required = true,
            description = "The secret the value was put with.")
    String secret;

    @Option(names = "--ttl", paramLabel = "SECONDS",
            description = "How long the tombstone lasts; at least the value's remaining TTL. "
                    + "The default is the default maximum TTL (7 days).")
    int ttlSeconds = NodeConfig.defaults().ttlSecondsMax();

    @Override
    public Integer call() {
        if (secret.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--secret must not be empty");
        }
        if (ttlSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--ttl must be at least 1 second, got " + ttlSeconds);
        }
        logging.apply(Level.WARN);
        boolean removed;
        try (RattanClient client = gateway.client()) {
            removed = client.removeSync(key, valueHash, secret.getBytes(StandardCharsets.UTF_8),
                    Duration.ofSeconds(ttlSeconds));
        } catch (RattanException e) {
            if (e.status() == Status.FORBIDDEN) {
                spec.commandLine().getErr().println("refused: the secret does not match the one the value was put "
                        + "with (or it was put without one)");
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
}
