package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import io.rattan.api.Id;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import io.rattan.client.Watch;
import io.rattan.client.WatchListener;
import java.io.PrintWriter;
import java.util.Base64;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code rattan watch}: prints a key's values, then each change, until interrupted. */
@Command(name = "watch",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Watches a key: prints one line per live value (its hash, the time it has left, the value as "
                + "text when it is printable UTF-8, else base64:...), then 'ready', then one line per change: "
                + "'value' for a value put since (or an owned value's newer sequence), 'removed' or 'expired' with "
                + "the hash of a value printed before. Runs until interrupted (Ctrl-C, exit 0).",
            "When a gateway fails, the watch moves to the next of -g and misses nothing: no value is printed twice, "
                + "and a value removed meanwhile is printed as removed.",
            "Exits 1 when the watch ends otherwise (e.g. RATE_LIMITED: the gateway serves its most watches), "
                + "with the reason on stderr."},
        footer = {"", "Example: rattan watch name:greeting",
            "         rattan watch -g 10.0.0.1:4001,10.0.0.2:4001 --json name:greeting",
            "         rattan watch --owner $(rattan keygen --show owner.pem) --value-id 5 name:greeting"})
final class WatchCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private LoggingOptions logging;

    @Mixin
    GatewayOptions gateway;

    @Parameters(index = "0", paramLabel = "KEY", converter = Converters.KeyConverter.class,
            description = "40 hex digits, or name:<text> for the SHA-1 of the text.")
    Id key;

    @Mixin
    ValueFilterOptions filterOptions;

    @Option(names = "--json",
            description = "One JSON object per line instead: {\"event\":\"value\",\"hash\":HEX,\"ttlSeconds\":N,"
                    + "\"value\":BASE64[,\"owner\":BASE64URL,\"valueId\":\"N\",\"seq\":\"N\"]}, {\"event\":\"ready\"}, "
                    + "{\"event\":\"removed\"|\"expired\",\"hash\":HEX}.")
    boolean json;

    @Override
    public Integer call() {
        logging.apply(Level.WARN);
        var filter = filterOptions.filter(spec.commandLine());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CompletableFuture<RattanException> ended = new CompletableFuture<>();
        RattanClient client = gateway.client();
        Watch watch = client.watch(key, filter, new Printer(out, ended));
        int status = UntilStopped.await(out, () -> {
            watch.close();
            client.close();
        }, ended);
        if (ended.isDone()) {
            err.println("the watch ended: " + ended.join().status() + ": " + ended.join().getMessage());
        }
        return status;
    }

    /** Prints each event as one line. */
    private final class Printer implements WatchListener {
        private final PrintWriter out;
        private final CompletableFuture<RattanException> ended;

        Printer(PrintWriter out, CompletableFuture<RattanException> ended) {
            this.out = out;
            this.ended = ended;
        }

        @Override
        public void onValue(GetResult.Value v) {
            if (json) {
                StringBuilder line = new StringBuilder("{\"event\":\"value\",\"hash\":\"" + v.valueHash().toHex()
                        + "\",\"ttlSeconds\":" + v.ttlRemaining().toSeconds() + ",\"value\":\""
                        + Base64.getEncoder().encodeToString(v.bytes()) + "\"");
                if (v.isOwned()) {
                    line.append(",\"owner\":\"").append(Base64.getUrlEncoder().withoutPadding().encodeToString(
                            v.owner().owner().toByteArray())).append("\",\"valueId\":\"")
                            .append(Long.toUnsignedString(v.owner().valueId())).append("\",\"seq\":\"")
                            .append(Long.toUnsignedString(v.owner().seq())).append('"');
                }
                print(line.append('}').toString());
            } else {
                print("value " + v.valueHash().toHex() + "  ttl " + v.ttlRemaining().toSeconds() + "s  "
                        + (v.isOwned() ? "seq " + Long.toUnsignedString(v.owner().seq()) + "  " : "")
                        + GetCommand.printable(v.bytes()));
            }
        }

        @Override
        public void onReady() {
            print(json ? "{\"event\":\"ready\"}" : "ready");
        }

        @Override
        public void onRemoved(GetResult.Value v) {
            print(json ? "{\"event\":\"removed\",\"hash\":\"" + v.valueHash().toHex() + "\"}"
                    : "removed " + v.valueHash().toHex());
        }

        @Override
        public void onExpired(GetResult.Value v) {
            print(json ? "{\"event\":\"expired\",\"hash\":\"" + v.valueHash().toHex() + "\"}"
                    : "expired " + v.valueHash().toHex());
        }

        @Override
        public void onEnded(RattanException cause) {
            ended.complete(cause);
        }

        private void print(String line) {
            out.println(line);
            out.flush();
        }
    }
}
