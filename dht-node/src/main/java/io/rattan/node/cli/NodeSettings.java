package io.rattan.node.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where {@code rattan node}'s settings come from besides its flags: an environment variable {@code RATTAN_} plus the
 * flag's name in upper snake case ({@code --http-port}: {@code RATTAN_HTTP_PORT}), then a properties file
 * ({@code --config FILE} or {@code RATTAN_CONFIG}; keys are the flags' names without the dashes). picocli asks it for
 * the default of every option the command line did not give, so a flag wins over the environment, the environment
 * over the file, and the file over the built-in default; picocli converts and checks its values as it does a
 * flag's. Fault injection and the command's own switches are flags only.
 */
final class NodeSettings implements CommandLine.IDefaultValueProvider {

    static final String ENV_PREFIX = "RATTAN_";
    static final String CONFIG_ENV = "RATTAN_CONFIG";
    static final String CONFIG_FLAG = "--config";

    /** What the launcher (and the mixed-version test, its old build) reads itself: no node setting, no warning. */
    private static final Set<String> LAUNCHER_ENV = Set.of("RATTAN_BUILD_SUFFIX", "RATTAN_CDS_DIR", CONFIG_ENV,
            "RATTAN_PREVIOUS_NODE_JAR");

    /** Never read from the environment or a file: fault injection, and switches of this one run. */
    private static final Set<String> FLAGS_ONLY = Set.of("--slow-trace", "--slow-trace-node", "--slow-trace-start",
            "--wan", "--wan-seed", "--wan-node", "--wan-peers", CONFIG_FLAG, "--print-config", "--verbose", "--help",
            "--version");

    private final Map<String, String> env;
    private final Path file;
    private final Map<String, String> fromFile;
    // Option name -> where the value picocli took came from; filled as picocli asks.
    private final Map<String, String> supplied = new HashMap<>();

    private NodeSettings(Map<String, String> env, Path file, Map<String, String> fromFile) {
        this.env = env;
        this.file = file;
        this.fromFile = fromFile;
    }

    /**
     * Reads the file named by {@code --config} in {@code nodeArgs} (or by {@code RATTAN_CONFIG}) and makes the settings
     * {@code node}'s default provider. Warns on {@code err} of every {@code RATTAN_*} variable that names no setting
     * or a flag-only one. A file that cannot be read, or that names an unknown or flag-only setting, throws
     * {@link IllegalArgumentException} saying so.
     */
    static NodeSettings install(CommandLine node, List<String> nodeArgs, Map<String, String> env, PrintWriter err) {
        CommandSpec spec = node.getCommandSpec();
        String configArg = configArgument(nodeArgs);
        Path file = configArg != null ? Path.of(configArg)
                : env.containsKey(CONFIG_ENV) && !env.get(CONFIG_ENV).isEmpty() ? Path.of(env.get(CONFIG_ENV)) : null;
        Map<String, String> fromFile = file == null ? Map.of() : read(file, spec);
        for (String name : new TreeMap<>(env).keySet()) {
            if (!name.startsWith(ENV_PREFIX) || LAUNCHER_ENV.contains(name)) {
                continue;
            }
            OptionSpec option = spec.findOption(flagOf(name));
            if (option == null) {
                err.println("warning: " + name + " names no setting of rattan node; ignored");
            } else if (FLAGS_ONLY.contains(option.longestName())) {
                err.println("warning: " + name + ": " + option.longestName() + " is a flag only; ignored");
            }
        }
        err.flush();
        NodeSettings settings = new NodeSettings(Map.copyOf(env), file, fromFile);
        node.setDefaultValueProvider(settings);
        return settings;
    }

    /** The value of the last {@code --config} in the node's arguments, or null. */
    private static String configArgument(List<String> args) {
        String found = null;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--")) {
                break;
            }
            if (a.equals(CONFIG_FLAG) && i + 1 < args.size()) {
                found = args.get(++i);
            } else if (a.startsWith(CONFIG_FLAG + "=")) {
                found = a.substring(CONFIG_FLAG.length() + 1);
            }
        }
        return found;
    }

    private static Map<String, String> read(Path file, CommandSpec spec) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("cannot read config file " + file + ": no such file", e);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot read config file " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> settings = new HashMap<>();
        for (String key : new TreeMap<>(toMap(p)).keySet()) {
            OptionSpec option = key.startsWith("-") ? null : spec.findOption("--" + key);
            if (option == null || !option.longestName().equals("--" + key)) {
                throw new IllegalArgumentException("config file " + file + ": '" + key + "' is no setting of rattan "
                        + "node (a setting is a flag's name without the dashes, e.g. http-port)");
            }
            if (FLAGS_ONLY.contains(option.longestName())) {
                throw new IllegalArgumentException("config file " + file + ": '" + key + "' is a flag only (fault "
                        + "injection and this run's switches are never read from a file)");
            }
            settings.put(option.longestName(), p.getProperty(key).trim());
        }
        return Map.copyOf(settings);
    }

    private static Map<String, String> toMap(Properties p) {
        Map<String, String> m = new HashMap<>();
        p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
        return m;
    }

    /** {@code RATTAN_HTTP_PORT} to {@code --http-port}. */
    static String flagOf(String envName) {
        return "--" + envName.substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code --http-port} to {@code RATTAN_HTTP_PORT}. */
    static String envOf(String flag) {
        return ENV_PREFIX + flag.substring(2).toUpperCase(Locale.ROOT).replace('-', '_');
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option) || FLAGS_ONLY.contains(option.longestName())) {
            return null;
        }
        String name = option.longestName();
        String fromEnv = env.get(envOf(name));
        if (fromEnv != null) {
            supplied.put(name, "environment " + envOf(name));
            return fromEnv;
        }
        String inFile = fromFile.get(name);
        if (inFile != null) {
            supplied.put(name, "file " + file);
            return inFile;
        }
        return null;
    }

    /** The config file read, or null. */
    Path file() {
        return file;
    }

    /** Where the value of {@code option} (its longest name) came from, if not from a flag or the default. */
    Optional<String> sourceOf(String option) {
        return Optional.ofNullable(supplied.get(option));
    }
}
