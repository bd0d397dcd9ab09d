package io.rattan.node.cli;

import io.rattan.client.RattanException;
import java.io.PrintWriter;
import java.security.Security;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code rattan} command line of the node module: run a node or a local cluster, talk to one as a client, or
 * run the demo. ({@code sim} and {@code bench} live in their own modules; the launcher script dispatches them.)
 *
 * <p>Exit codes: 0 success, 1 the operation failed or found nothing, 2 bad usage.
 */
@Command(name = "rattan",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        description = "Rattan: an overlay DHT with delay-aware routing, in the style of OpenDHT.",
        subcommands = {
            NodeCommand.class,
            LocalCommand.class,
            PutCommand.class,
            GetCommand.class,
            WatchCommand.class,
            RmCommand.class,
            LoadCommand.class,
            NamespacesCommand.class,
            KeygenCommand.class,
            CertsCommand.class,
            DemoCommand.class,
        },
        footer = {"", "Exit codes: 0 success, 1 failed or not found, 2 bad usage.",
            "Simulation and benchmarks: ./rattan sim --help, ./rattan bench --help"})
public final class RattanCli implements Runnable {

    /** The version every subcommand reports. */
    public static final String VERSION = io.rattan.node.BuildInfo.VERSION;

    /** Exit code of an operation that ran but failed, was refused, or found nothing. */
    static final int EXIT_FAILED = 1;
    /**
     * Exit code of a node whose settings do not fit its cluster's (sysexits' EX_CONFIG): starting it again will not
     * help, and the systemd unit says so ({@code RestartPreventExitStatus}).
     */
    static final int EXIT_CONFIG = 78;

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        // A node looks its bootstrap names up every 2 s until it has joined (--founder-host decides by them): the
        // JVM would keep an answer for 30 s and a failure for 10.
        if (Security.getProperty("networkaddress.cache.ttl") == null
                && System.getProperty("sun.net.inetaddr.ttl") == null) {
            Security.setProperty("networkaddress.cache.ttl", "1");
            Security.setProperty("networkaddress.cache.negative.ttl", "0");
        }
        System.exit(run(args, System.getenv(), new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /**
     * Runs {@code args} as {@code main} does, with {@code env} as the environment: {@code rattan node} reads its
     * settings from it and from its {@code --config} file too ({@link NodeSettings}).
     */
    static int run(String[] args, Map<String, String> env, PrintWriter out, PrintWriter err) {
        CommandLine cl = commandLine();
        cl.setOut(out);
        cl.setErr(err);
        if (args.length > 0 && args[0].equals("node")) {
            CommandLine node = cl.getSubcommands().get("node");
            NodeSettings settings;
            try {
                settings = NodeSettings.install(node, Arrays.asList(args).subList(1, args.length), env, err);
            } catch (IllegalArgumentException e) {
                err.println("error: " + e.getMessage());
                err.println("Try 'rattan node --help' for more information.");
                err.flush();
                return CommandLine.ExitCode.USAGE;
            }
            IParameterExceptionHandler standard = cl.getParameterExceptionHandler();
            List<String> given = Arrays.asList(args);
            cl.setParameterExceptionHandler((e, a) -> {
                // A bad value from the environment or the file says where it came from.
                if (e.getArgSpec() instanceof OptionSpec o && settings.sourceOf(o.longestName()).isPresent()
                        && given.stream().noneMatch(g -> isFlag(g, o))) {
                    err.println("error: " + e.getMessage() + " (from " + settings.sourceOf(o.longestName()).get()
                            + ")");
                    err.flush();
                    return CommandLine.ExitCode.USAGE;
                }
                return standard.handleParseException(e, a);
            });
        }
        return cl.execute(args);
    }

    private static boolean isFlag(String arg, OptionSpec option) {
        for (String name : option.names()) {
            if (arg.equals(name) || arg.startsWith(name + "=")) {
                return true;
            }
        }
        return false;
    }

    /** The command line with Rattan's error handling: client failures become one line on stderr and exit 1. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new RattanCli());
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            if (e instanceof RattanException) {
                RattanException re = (RattanException) e;
                err.println("error: " + re.status() + ": " + re.getMessage());
            } else {
                err.println("error: " + e);
                e.printStackTrace(err);
            }
            err.flush();
            return EXIT_FAILED;
        });
        return cl;
    }

    /** With no subcommand: show what there is. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Reports {@link #VERSION}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"rattan " + VERSION};
        }
    }
}
