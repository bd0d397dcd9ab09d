package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import io.rattan.api.Id;
import io.rattan.client.OwnerKey;
import io.rattan.client.PermanentValue;
import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.client.SwapResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code rattan put}: stores a value under a key. */
@Command(name = "put",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Stores a value under a key for a while. A key holds a set of values: a different value is "
                + "added, the same value again is refreshed.",
            "Prints the value's hash, which 'rattan rm' needs."},
        footer = {"", "Example: rattan put name:greeting 'hello world' --ttl 600 --secret s3cret",
            "Owned:   rattan put name:status 'online' --owner-key owner.pem --value-id 1 --seq 7 --if-seq 6",
            "Kept:    rattan put name:presence 'here' --ttl 60 --secret s3cret --permanent"})
final class PutCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private LoggingOptions logging;

    @Mixin
    GatewayOptions gateway;

    @Parameters(index = "0", paramLabel = "KEY", converter = Converters.KeyConverter.class,
            description = "40 hex digits, or name:<text> for the SHA-1 of the text.")
    Id key;

    @Parameters(index = "1", paramLabel = "VALUE",
            description = "The value, as UTF-8 text; '-' reads its raw bytes from standard input.")
    String value;

    @Option(names = "--ttl", paramLabel = "SECONDS", description = "How long the value lives.")
    int ttlSeconds = 3600;

    @Option(names = "--secret", paramLabel = "SECRET",
            description = "Makes the value removable by whoever presents this secret (the secret is not sent: only "
                    + "the binding of the value's remove proof is). "
                    + "Without it, nobody can remove the value before it expires.")
    String secret;

    @Mixin
    OwnedPutOptions owned;

    @Option(names = "--permanent",
            description = "Keep the value alive from this process: put it again every half TTL (through any -g "
                    + "gateway) until interrupted (Ctrl-C); it then lives out its last TTL. --ttl is at least 10 s. "
                    + "To keep it without a process, put through HTTP with ?permanent=true.")
    boolean permanent;

    /** The value's bytes; a usage error when empty or when the TTL or secret is unusable. */
    byte[] valueBytes() throws IOException {
        if (ttlSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--ttl must be at least 1 second, got " + ttlSeconds);
        }
        if (secret != null && secret.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--secret must not be empty");
        }
        if (permanent && (ttlSeconds < RattanClient.PERMANENT_TTL_MIN.getSeconds() || owned.conditional())) {
            throw new ParameterException(spec.commandLine(), "--permanent needs --ttl of at least "
                    + RattanClient.PERMANENT_TTL_MIN.getSeconds() + " s and no --if-seq or --if-absent");
        }
        String problem = owned.problem(secret != null);
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
        byte[] bytes = value.equals("-") ? System.in.readAllBytes() : value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0) {
            throw new ParameterException(spec.commandLine(), "the value is empty");
        }
        return bytes;
    }

    @Override
    public Integer call() throws IOException {
        byte[] bytes = valueBytes();
        logging.apply(Level.WARN);
        PrintWriter out = spec.commandLine().getOut();
        if (permanent) {
            return keepAlive(bytes, out);
        }
        if (owned.owned()) {
            return putOwned(bytes, out);
        }
        try (RattanClient client = gateway.client()) {
            byte[] secretBytes = secret == null ? null : secret.getBytes(StandardCharsets.UTF_8);
            PutResult result = client.putSync(key, bytes, Duration.ofSeconds(ttlSeconds), secretBytes);
            out.println("stored " + result.valueHash().toHex() + " under " + key.toHex() + " on "
                    + result.replicas() + (result.replicas() == 1 ? " replica" : " replicas") + " for " + ttlSeconds
                    + " s"
                    + (secret == null ? " (not removable)" : ""));
        }
        return 0;
    }

    private int putOwned(byte[] bytes, PrintWriter out) throws IOException {
        OwnerKey owner = owned.owner.key();
        long valueId = OwnerOptions.unsigned(owned.owner.valueId);
        long seq = OwnerOptions.unsigned(owned.owner.seq);
        Instant expiresAt = Instant.now().plusSeconds(ttlSeconds);
        String what = "value " + owned.owner.valueId + " of owner " + owner.publicKeyBase64Url() + " under " + key.toHex();
        try (RattanClient client = gateway.client()) {
            if (owned.ifSeq == null && !owned.ifAbsent) {
                PutResult r = client.putOwnedSync(key, bytes, owner, valueId, seq, expiresAt);
                out.println("stored sequence " + owned.owner.seq + " of " + what + " on " + r.replicas() + " replicas until "
                        + expiresAt.getEpochSecond());
                return 0;
            }
            Long expected = owned.ifAbsent ? null : OwnerOptions.unsigned(owned.ifSeq);
            SwapResult r = client.compareAndSetSync(key, bytes, owner, valueId, expected, seq, expiresAt);
            if (!r.swapped()) {
                spec.commandLine().getErr().println("not swapped: " + (r.currentSeq() == null ? "no value is held"
                        : "sequence " + Long.toUnsignedString(r.currentSeq()) + " is held") + " for " + what);
                return RattanCli.EXIT_FAILED;
            }
            out.println("swapped in sequence " + owned.owner.seq + " of " + what + " on " + r.replicas() + " replicas");
            return 0;
        }
    }

    /** {@code --permanent}: puts, then keeps the value alive until the process is told to stop. */
    private int keepAlive(byte[] bytes, PrintWriter out) throws IOException {
        OwnerKey owner = owned.owned() ? owned.owner.key() : null;
        RattanClient client = gateway.client();
        Duration ttl = Duration.ofSeconds(ttlSeconds);
        PermanentValue kept;
        try {
            kept = (owner != null
                    ? client.putPermanentOwned(key, bytes, owner, OwnerOptions.unsigned(owned.owner.valueId),
                            OwnerOptions.unsigned(owned.owner.seq), ttl)
                    : client.putPermanent(key, bytes, ttl, secret == null ? null : secret.getBytes(StandardCharsets.UTF_8)))
                    .join();
        } catch (CompletionException e) {
            client.close();
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        out.println("stored " + kept.valueHash().toHex() + " under " + key.toHex() + "; keeping it alive (a put every "
                + ttlSeconds / 2 + " s) until interrupted");
        out.flush();
        return UntilStopped.await(out, () -> {
            kept.close();
            client.close();
            out.println("no longer kept alive after " + kept.puts() + " puts; it expires within " + ttlSeconds + " s");
        }, kept.stopped().thenAccept(refusal -> spec.commandLine().getErr().println(
                "the value is no longer kept alive: a put was refused for good (" + refusal.status() + "): "
                        + refusal.getMessage())));
    }
}
