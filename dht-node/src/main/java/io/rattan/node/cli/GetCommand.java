package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.id.Id;
import io.rattan.core.msg.RoutingMode;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code rattan get}: prints every live value under a key. */
@Command(name = "get",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Prints every live value under a key, one per line: its hash, the time it has left, and the "
                + "value itself (as text when it is printable UTF-8, else as base64:...).",
            "Exits 1 when the key holds no live value."},
        footer = {"", "Example: rattan get name:greeting"})
final class GetCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private LoggingOptions logging;

    @Mixin
    GatewayOptions gateway;

    @Parameters(index = "0", paramLabel = "KEY", converter = Converters.KeyConverter.class,
            description = "40 hex digits, or name:<text> for the SHA-1 of the text.")
    Id key;

    @Option(names = "--routing", paramLabel = "MODE", converter = Converters.RoutingConverter.class,
            description = "How the get chooses each next hop: greedy or delay-aware (default).",
            showDefaultValue = CommandLine.Help.Visibility.NEVER)
    RoutingMode routing = RoutingMode.DEFAULT;

    @Override
    public Integer call() {
        logging.apply(Level.WARN);
        PrintWriter out = spec.commandLine().getOut();
        GetResult result;
        try (RattanClient client = gateway.client()) {
            result = client.getSync(key, routing);
        }
        if (result.values().isEmpty()) {
            spec.commandLine().getErr().println("no live value under " + key.toHex());
            return RattanCli.EXIT_FAILED;
        }
        for (GetResult.Value v : result.values()) {
            out.println(v.valueHash().toHex() + "  ttl " + v.ttlRemaining().toSeconds() + "s  "
                    + printable(v.bytes()));
        }
        out.println("(" + result.values().size() + (result.values().size() == 1 ? " value, " : " values, ")
                + result.hops() + " hops" + (result.complete() ? "" : ", more values remain") + ")");
        return 0;
    }

    /** The bytes as text when they are UTF-8 without control characters, else {@code base64:...}. */
    static String printable(byte[] bytes) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
            boolean clean = text.codePoints().noneMatch(Character::isISOControl);
            if (clean) {
                return text;
            }
        } catch (CharacterCodingException e) {
            // Not text: fall through to base64.
        }
        return "base64:" + Base64.getEncoder().encodeToString(bytes);
    }
}
