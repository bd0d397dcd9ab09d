package io.rattan.node.cli;

import io.rattan.node.NodeOptions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/** {@code rattan node --print-config}: every setting's effective value and where it came from. */
final class EffectiveSettings {

    private EffectiveSettings() {
    }

    /**
     * One line per setting, {@code name value source}, in the order of {@code --help}; a setting whose default is
     * worked out from others (k, W, the data directory) shows the value {@code options} holds.
     */
    static String describe(CommandSpec spec, NodeOptions options) {
        NodeSettings settings = spec.defaultValueProvider() instanceof NodeSettings s ? s : null;
        ParseResult parsed = spec.commandLine().getParseResult();
        List<String[]> rows = new ArrayList<>();
        for (OptionSpec o : spec.options()) {
            String name = o.longestName();
            if (o.usageHelp() || o.versionHelp() || name.equals("--print-config")) {
                continue;
            }
            String value = shown(name, o.getValue(), options);
            String source;
            if (parsed.hasMatchedOption(o)) {
                source = "flag";
            } else if (name.equals(NodeSettings.CONFIG_FLAG) && settings != null && settings.file() != null) {
                value = settings.file().toString();
                source = "environment " + NodeSettings.CONFIG_ENV;
            } else {
                source = settings == null ? "default" : settings.sourceOf(name).orElse("default");
            }
            rows.add(new String[] {name.substring(2), value, source});
        }
        int nameWidth = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
        int valueWidth = Math.min(40, rows.stream().mapToInt(r -> r[1].length()).max().orElse(0));
        StringBuilder out = new StringBuilder();
        for (String[] r : rows) {
            out.append(String.format(Locale.ROOT, "%-" + nameWidth + "s  %-" + valueWidth + "s  %s%n", r[0], r[1],
                    r[2]));
        }
        return out.toString();
    }

    private static String shown(String name, Object value, NodeOptions options) {
        switch (name) {
            case "--replicas":
                return Integer.toString(options.config().replicas());
            case "--write-quorum":
                return Integer.toString(options.config().writeQuorum());
            case "--data-dir":
                return options.dataDir().toString();
            case "--bind":
                return options.bind();
            case "--advertise":
                return options.host();
            default:
                break;
        }
        if (value == null) {
            return "-";
        }
        if (value instanceof boolean[] flags) {
            return Integer.toString(flags.length);
        }
        if (value instanceof Collection<?> c) {
            return c.isEmpty() ? "-" : c.stream().map(String::valueOf).collect(Collectors.joining(","));
        }
        return value.toString();
    }
}
