package io.rattan.node.deploy;

import io.rattan.node.RattanNode;
import io.rattan.node.cli.RattanCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What the manifests are checked against: {@code rattan node}'s and {@code rattan certs node}'s options as the code
 * declares them, a {@code rattan node --print-config} run, and the node's stop bounds. {@code RattanCli.run} and the
 * constants are package-private in their packages: reached by reflection, so that a rename fails here, loudly.
 */
final class NodeCli {

    static final String ENV_PREFIX = "RATTAN_";

    /** What a {@code rattan node ... --print-config} run printed, and its exit status. */
    record Run(int exit, String out, String err) {
    }

    private NodeCli() {
    }

    private static final class Spec {
        static final CommandSpec NODE = RattanCli.commandLine().getSubcommands().get("node").getCommandSpec();
    }

    /** {@code rattan node}'s command spec, as {@code rattan} builds it; built once, only read. */
    static CommandSpec node() {
        return Spec.NODE;
    }

    /** The default of {@code rattan node}'s option {@code flag}, as the code declares it. */
    static String defaultOf(String flag) {
        OptionSpec o = option(flag);
        return o.defaultValue() != null ? o.defaultValue() : String.valueOf(o.<Object>initialValue());
    }

    /** {@code rattan node}'s option {@code flag}; fails when there is none. */
    static OptionSpec option(String flag) {
        OptionSpec o = node().findOption(flag);
        if (o == null) {
            throw new AssertionError("rattan node has no option " + flag);
        }
        return o;
    }

    /** {@code RATTAN_HTTP_PORT} to {@code --http-port}, as NodeSettings maps them. */
    static String flagOf(String envName) {
        return "--" + envName.substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code --http-port} to {@code RATTAN_HTTP_PORT}. */
    static String envOf(String flag) {
        return ENV_PREFIX + flag.substring(2).toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /** Parses {@code args} as the whole {@code rattan} command line does; throws what picocli throws on bad usage. */
    static CommandLine.ParseResult parse(List<String> args) {
        return RattanCli.commandLine().parseArgs(args.toArray(String[]::new));
    }

    /** Runs {@code rattan <args> --print-config} with {@code env} as its environment. */
    static Run printConfig(List<String> args, Map<String, String> env) throws ReflectiveOperationException {
        Method run = RattanCli.class.getDeclaredMethod("run", String[].class, Map.class, PrintWriter.class,
                PrintWriter.class);
        run.setAccessible(true);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] all = Stream.concat(args.stream(), Stream.of("--print-config")).toArray(String[]::new);
        try {
            int exit = (Integer) run.invoke(null, all, env, new PrintWriter(out, true), new PrintWriter(err, true));
            return new Run(exit, out.toString(), err.toString());
        } catch (InvocationTargetException e) {
            throw new AssertionError("rattan node --print-config threw", e.getCause());
        }
    }

    /**
     * How long a node's graceful stop on SIGTERM may take at most, in ms, counting the waits that have a bound:
     * the hand-off to the new replicas ({@code RattanNode.LEAVE_TIMEOUT_MILLIS}), the loop's stop
     * ({@code STATUS_TIMEOUT_MILLIS}) and the threads' shutdown ({@code NodeParts.SHUTDOWN_TIMEOUT_MILLIS}).
     */
    static long stopBoundMillis() throws ReflectiveOperationException {
        return constant(RattanNode.class, "LEAVE_TIMEOUT_MILLIS") + constant(RattanNode.class, "STATUS_TIMEOUT_MILLIS")
                + constant(Class.forName("io.rattan.node.NodeParts"), "SHUTDOWN_TIMEOUT_MILLIS");
    }

    /** The hand-off's bound alone ({@code RattanNode.LEAVE_TIMEOUT_MILLIS}). */
    static long leaveBoundMillis() throws ReflectiveOperationException {
        return constant(RattanNode.class, "LEAVE_TIMEOUT_MILLIS");
    }

    private static long constant(Class<?> owner, String name) throws ReflectiveOperationException {
        Field f = owner.getDeclaredField(name);
        f.setAccessible(true);
        return f.getLong(null);
    }
}
