package io.rattan.node.hosts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Hosts on one machine for the tests of several hosts: a network namespace per host, each with its own address on
 * one bridged subnet (10.213.0.0/24, the bridge in a namespace of its own), made with iproute2 and removed by
 * {@link #close}. Nothing of it is seen outside the namespaces: the machine's own network is untouched.
 */
final class NetnsHosts implements AutoCloseable {

    private final String prefix;
    private final List<String> namespaces = new ArrayList<>();
    private final List<String> addresses = new ArrayList<>();

    private NetnsHosts(String prefix) {
        this.prefix = prefix;
    }

    /** Whether this machine lets us make namespaces (root, iproute2): the tests are skipped where not. */
    static boolean available() {
        String probe = "rt-probe-" + randomName();
        try {
            boolean made = run(List.of("ip", "netns", "add", probe)).exit() == 0;
            if (made) {
                run(List.of("ip", "netns", "del", probe));
            }
            return made;
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code count} hosts, 10.213.0.2 onwards, on one bridge. */
    static NetnsHosts create(int count) throws IOException {
        // A random name: one left by a killed JVM is never taken for ours (interface names stay within 15 bytes).
        NetnsHosts hosts = new NetnsHosts("rt" + randomName());
        try {
            hosts.build(count);
            return hosts;
        } catch (IOException | RuntimeException e) {
            hosts.close();
            throw e;
        }
    }

    private static String randomName() {
        return String.format("%06x", new SecureRandom().nextInt(1 << 24));
    }

    private void build(int count) throws IOException {
        String sw = prefix + "-sw";
        add(sw);
        must(List.of("ip", "netns", "exec", sw, "ip", "link", "add", "br0", "type", "bridge"));
        must(List.of("ip", "netns", "exec", sw, "ip", "link", "set", "br0", "up"));
        for (int i = 0; i < count; i++) {
            String ns = prefix + "-h" + i;
            add(ns);
            String inHost = prefix + "h" + i;
            String onBridge = prefix + "s" + i;
            // Made inside the host's namespace, its peer put straight into the bridge's: nothing in the machine's own.
            must(List.of("ip", "netns", "exec", ns, "ip", "link", "add", inHost, "type", "veth", "peer", "name",
                    onBridge, "netns", sw));
            must(List.of("ip", "netns", "exec", sw, "ip", "link", "set", onBridge, "master", "br0"));
            must(List.of("ip", "netns", "exec", sw, "ip", "link", "set", onBridge, "up"));
            String address = "10.213.0." + (i + 2);
            must(List.of("ip", "netns", "exec", ns, "ip", "addr", "add", address + "/24", "dev", inHost));
            must(List.of("ip", "netns", "exec", ns, "ip", "link", "set", inHost, "up"));
            must(List.of("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"));
            addresses.add(address);
        }
    }

    private void add(String ns) throws IOException {
        must(List.of("ip", "netns", "add", ns));
        namespaces.add(ns);
    }

    /** Host {@code i}'s address. */
    String address(int i) {
        return addresses.get(i);
    }

    /** Host {@code i}'s namespace. */
    String namespace(int i) {
        return namespaces.get(i + 1);
    }

    /** {@code command} run in host {@code i}'s namespace: the prefix of a command line. */
    List<String> in(int i, List<String> command) {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", namespace(i)));
        cmd.addAll(command);
        return cmd;
    }

    /** Runs {@code command} in host {@code i}'s namespace and returns its exit code and output. */
    Result run(int i, List<String> command) throws IOException {
        return run(in(i, command));
    }

    /** curl in host {@code i}'s namespace; the output ends with a line holding the HTTP status. */
    Result curl(int i, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("curl", "-s", "--max-time", "30", "-w", "\n%{http_code}"));
        cmd.addAll(List.of(args));
        return run(i, cmd);
    }

    record Result(int exit, String output) {

        /** The HTTP status that {@link #curl} put on the output's last line. */
        int status() {
            return Integer.parseInt(output.substring(output.lastIndexOf('\n') + 1).trim());
        }

        /** The output without {@link #curl}'s status line. */
        String body() {
            return output.substring(0, Math.max(0, output.lastIndexOf('\n')));
        }
    }

    static Result run(List<String> command) throws IOException {
        // Output to a file, so that the wait below bounds a command that hangs with its output open.
        Path out = Files.createTempFile("rattan-netns", ".out");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            try {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException("timed out: " + command);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
                throw new IOException("interrupted: " + command, e);
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static void must(List<String> command) throws IOException {
        Result r = run(command);
        if (r.exit() != 0) {
            throw new IOException(command + " failed (" + r.exit() + "): " + r.output());
        }
    }

    /** Removes every namespace made (their links with them). */
    @Override
    public void close() throws IOException {
        IOException failed = null;
        for (String ns : namespaces) {
            Result r = run(List.of("ip", "netns", "del", ns));
            if (r.exit() != 0 && failed == null) {
                failed = new IOException("ip netns del " + ns + " failed: " + r.output());
            }
        }
        namespaces.clear();
        if (failed != null) {
            throw failed;
        }
    }
}
