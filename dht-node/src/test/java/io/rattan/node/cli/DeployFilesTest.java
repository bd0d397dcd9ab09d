package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The systemd unit and its example config file in {@code deploy/systemd/} start a node as they say: the unit's
 * {@code Environment=} variables and its command line, with the example file as {@code RATTAN_CONFIG}, are a valid
 * {@code rattan node} start ({@code --print-config} exits 0), and the settings come from where the files put them. A
 * setting renamed in code fails here rather than on an operator's machine.
 */
class DeployFilesTest {

    private static final Pattern ENV = Pattern.compile("^Environment=([A-Z_]+)=(.*)$", Pattern.MULTILINE);
    private static final Pattern EXEC = Pattern.compile("^ExecStart=.* -jar \\S+ ([^']*)'$", Pattern.MULTILINE);

    @Test
    void theSystemdUnitAndItsConfigFileAreAValidStart() throws IOException {
        Path systemd = deployDir().resolve("systemd");
        String unit = Files.readString(systemd.resolve("rattan.service"));
        Map<String, String> env = new HashMap<>();
        Matcher e = ENV.matcher(unit);
        while (e.find()) {
            if (!e.group(1).equals("JAVA_OPTS")) {
                env.put(e.group(1), e.group(2));
            }
        }
        assertThat(env).containsKeys("RATTAN_CONFIG", "RATTAN_DATA_DIR");
        Path config = systemd.resolve("node.properties");
        env.put("RATTAN_CONFIG", config.toString());
        Matcher x = EXEC.matcher(unit);
        assertThat(x.find()).as("the unit's ExecStart runs the jar").isTrue();
        List<String> args = new ArrayList<>(List.of(x.group(1).trim().split("\\s+")));
        assertThat(args.get(0)).isEqualTo("node");
        args.add("--print-config");

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = RattanCli.run(args.toArray(String[]::new), env, new PrintWriter(out, true),
                new PrintWriter(err, true));

        assertThat(exit).as(err.toString()).isZero();
        String file = "file " + config;
        assertThat(out.toString()).containsPattern("(?m)^data-dir\\s+/var/lib/rattan\\s+environment RATTAN_DATA_DIR$")
                .containsPattern("(?m)^bind\\s+0\\.0\\.0\\.0\\s+" + Pattern.quote(file) + "$")
                .containsPattern("(?m)^advertise\\s+10\\.0\\.0\\.11\\s+" + Pattern.quote(file) + "$")
                .containsPattern("(?m)^admin-port\\s+4090\\s+" + Pattern.quote(file) + "$")
                .containsPattern("(?m)^http-serves\\s+metrics\\s+" + Pattern.quote(file) + "$")
                .containsPattern("(?m)^fsync\\s+true\\s+" + Pattern.quote(file) + "$")
                .containsPattern("(?mi)^log-format\\s+json\\s+flag$");
    }

    /** The repository's {@code deploy/}, found upward from the module the test runs in. */
    static Path deployDir() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("deploy"))) {
                return p.resolve("deploy");
            }
        }
        throw new AssertionError("no deploy/ above " + Path.of("").toAbsolutePath());
    }
}
