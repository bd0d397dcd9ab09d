package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import io.rattan.api.Consistency;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
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
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code rattan get}: prints every live value under a key. */
@Command(name = "get",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Prints every live value under a key, one per line: its hash, the time it has left, and the "
                + "value itself (as text when it is printable UTF-8, else as base64:...); then what the get cost "
                + "in the overlay: hops, messages and bytes.",
            "Exits 1 when the key holds no live value (with --owner: no matching one)."},
        footer = {"", "Example: rattan get name:greeting",
            "         rattan get -g 10.0.0.1:4001,10.0.0.2:4001 --gateways 2 --no-hedge name:greeting",
            "         rattan get --owner $(rattan keygen --show owner.pem) --value-id 5 name:greeting"})
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
            description = "How the get travels the overlay: delay-aware (default), greedy (each hop picks the next), "
                    + "or iterative (the gateway asks the nodes of the path itself, --p at a time).",
            showDefaultValue = CommandLine.Help.Visibility.NEVER)
    RoutingMode routing = GetOptions.defaults().routing();

    @Option(names = "--p", paramLabel = "N",
            description = "Questions an iterative get keeps in flight, 1..16; only with --routing iterative. "
                    + "Default: the gateway's (3).",
            showDefaultValue = CommandLine.Help.Visibility.NEVER)
    Integer parallelism;

    @Option(names = "--gateways", paramLabel = "G", defaultValue = "1",
            description = "Gateways each page is sent to at once, 1..8, taken in turn from --gateway; the first "
                    + "good answer wins and the other copies are cancelled.")
    int gateways;

    @Option(names = "--hedge", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Send one more copy, through the next gateway, when no answer came within the client's "
                    + "hedge threshold (the p80 of recent gets, 500 ms at first). --no-hedge: never.")
    boolean hedge;

    @Option(names = "--onehop",
            description = "One-hop: the client sends the get straight to a replica's own gateway once its image of "
                    + "the ring knows the key's replicas (learned from answers; a fresh command's first get goes "
                    + "through -g and learns them). Not with --routing iterative.")
    boolean oneHop;

    @Option(names = "--quorum",
            description = "A quorum get: the first replica reached reads R replicas of the key (--r), answers with "
                    + "their merge and repairs the replicas that lacked a value. Says 'partial' when fewer than R "
                    + "answered. Not with --routing iterative.")
    boolean quorum;

    @Option(names = "--r", paramLabel = "R",
            description = "Replicas a --quorum get reads, 1..k. Default: the gateway's (k/2+1, 3 of k = 4).",
            showDefaultValue = CommandLine.Help.Visibility.NEVER)
    Integer readReplicas;

    @Mixin
    ValueFilterOptions filterOptions;

    @Override
    public Integer call() {
        logging.apply(Level.WARN);
        GetOptions options = options();
        PrintWriter out = spec.commandLine().getOut();
        GetResult result;
        try (RattanClient client = gateway.client()) {
            result = client.getSync(key, options);
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
                + cost(result) + (result.complete() ? "" : ", more values remain")
                + (result.partial() ? ", partial: fewer than R replicas answered" : "") + ")");
        return 0;
    }

    /** The flags as get options; a usage error when they do not fit together. */
    GetOptions options() {
        if (parallelism != null && routing != RoutingMode.ITERATIVE) {
            throw new ParameterException(spec.commandLine(),
                    "--p is the parallelism of an iterative get: use it with --routing iterative");
        }
        if (parallelism != null && (parallelism < 1 || parallelism > GetOptions.PARALLELISM_MAX)) {
            throw new ParameterException(spec.commandLine(), "--p must be 1.." + GetOptions.PARALLELISM_MAX
                    + ", got " + parallelism);
        }
        if (gateways < 1 || gateways > GetOptions.GATEWAYS_MAX) {
            throw new ParameterException(spec.commandLine(), "--gateways must be 1.." + GetOptions.GATEWAYS_MAX
                    + ", got " + gateways);
        }
        if (oneHop && routing == RoutingMode.ITERATIVE) {
            throw new ParameterException(spec.commandLine(),
                    "--onehop goes straight to a replica: it cannot be combined with --routing iterative");
        }
        if (readReplicas != null && !quorum) {
            throw new ParameterException(spec.commandLine(), "--r is how many replicas a quorum get reads: use it "
                    + "with --quorum");
        }
        if (readReplicas != null && (readReplicas < 1 || readReplicas > GetOptions.READ_REPLICAS_MAX)) {
            throw new ParameterException(spec.commandLine(), "--r must be 1.." + GetOptions.READ_REPLICAS_MAX
                    + ", got " + readReplicas);
        }
        if (quorum && routing == RoutingMode.ITERATIVE) {
            throw new ParameterException(spec.commandLine(), "--quorum is read by a replica the get is routed "
                    + "to: it cannot be combined with --routing iterative");
        }
        return GetOptions.builder().routing(routing).parallelism(parallelism == null ? 0 : parallelism)
                .gateways(gateways).hedge(hedge).oneHop(oneHop)
                .consistency(quorum ? Consistency.QUORUM : Consistency.ONE, readReplicas == null ? 0 : readReplicas)
                .filter(filterOptions.filter(spec.commandLine())).build();
    }


    /** Hops, messages and bytes, as the answering copies of the pages counted them in the overlay. */
    private static String cost(GetResult r) {
        return r.hops() + " hops, " + r.cost().messages() + " messages, " + r.cost().bytes() + " bytes";
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
