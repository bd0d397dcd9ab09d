package io.rattan.node.process;

import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * One node process on this host, a JVM running {@code rattan node}: started by this JVM ({@link #start}), or found
 * again through its pid file ({@link #find}) by a later command, as each {@code rattan cluster} subcommand is. It
 * says whether the node runs, signals it, probes its {@code /ready} and reads its log since the last launch.
 *
 * <p>A pid is trusted only while {@code /proc/PID/cmdline} names this node's data dir: pids are reused, and a pid
 * file left behind by a crash must never lead to signalling a stranger. Linux only ({@code /proc}, kill(1)).
 * Immutable; any thread, though one node is best signalled from one thread, so that signals arrive in order.
 */
public final class NodeProcess {

    /** Starts the line written to a node's log before each launch. */
    private static final String LAUNCH_MARK = "---- ";
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final int FAILED_START_LOG_LINES = 40;

    private final NodePorts ports;
    private final Path dataDir;
    /** Where its pid is kept while it runs; null when none is. */
    private final Path pidFile;
    private final Path log;
    /** The process, when this JVM started it; null when found through the pid file. */
    private final Process child;

    private NodeProcess(NodePorts ports, Path dataDir, Path pidFile, Path log, Process child) {
        this.ports = ports;
        this.dataDir = dataDir.toAbsolutePath().normalize();
        this.pidFile = pidFile;
        this.log = log;
        this.child = child;
    }

    /** The node that a previous command started with this data dir, pid file and log; it may have gone since. */
    public static NodeProcess find(NodePorts ports, Path dataDir, Path pidFile, Path log) {
        return new NodeProcess(ports, dataDir, pidFile, log, null);
    }

    /**
     * Starts {@code launch} with an empty standard input and its output appended to {@code log}, after a line that
     * names the launch. With {@code ownSession} it runs in a session of its own (setsid), so that a Ctrl-C meant for
     * a later foreground command never reaches it. Its pid goes to {@code pidFile} unless that is null. Returns at
     * once: {@link #awaitReady} or {@link #readiness} say when it serves.
     */
    public static NodeProcess start(NodeLaunch launch, Path log, Path pidFile, boolean ownSession)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        if (ownSession && new File("/usr/bin/setsid").canExecute()) {
            cmd.add("/usr/bin/setsid");
        }
        cmd.addAll(launch.command());
        Files.createDirectories(log.toAbsolutePath().getParent());
        Files.writeString(log, LAUNCH_MARK + Instant.now() + " " + String.join(" ", cmd) + "\n",
                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Process process = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectErrorStream(true)
                .start();
        if (pidFile != null) {
            Files.writeString(pidFile, process.pid() + "\n", StandardCharsets.US_ASCII);
        }
        return new NodeProcess(launch.ports(), launch.dataDir(), pidFile, log, process);
    }

    public NodePorts ports() {
        return ports;
    }

    /** The pid of this node's live process, or empty when there is none (exited, no pid file, or a reused pid). */
    public OptionalLong livePid() {
        if (child != null) {
            return child.isAlive() ? OptionalLong.of(child.pid()) : OptionalLong.empty();
        }
        if (pidFile == null) {
            return OptionalLong.empty();
        }
        long pid;
        try {
            pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.US_ASCII).trim());
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
        return runsDataDir(pid) ? OptionalLong.of(pid) : OptionalLong.empty();
    }

    public boolean isAlive() {
        return livePid().isPresent();
    }

    /** The live process's handle, for waiting on its exit. */
    public Optional<ProcessHandle> handle() {
        OptionalLong pid = livePid();
        return pid.isEmpty() ? Optional.empty() : ProcessHandle.of(pid.getAsLong());
    }

    /** The exit status of a process this JVM started and that has exited; empty otherwise. */
    public OptionalInt exitStatus() {
        return child != null && !child.isAlive() ? OptionalInt.of(child.exitValue()) : OptionalInt.empty();
    }

    /** Sends {@code signal} (STOP, CONT, TERM, KILL) to the live process; false when there is none. */
    public boolean signal(String signal) {
        OptionalLong pid = livePid();
        return pid.isPresent() && sendSignal(pid.getAsLong(), signal);
    }

    /** SIGKILL: the node gets no chance to hand anything over or close its store. False when it was not running. */
    public boolean sigkill() {
        if (child != null) {
            boolean alive = child.isAlive();
            child.destroyForcibly();
            return alive;
        }
        return signal("KILL");
    }

    /** Waits up to {@code timeout} for the process to be gone; true when it is. */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        if (child != null) {
            return child.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (isAlive()) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            Thread.sleep(POLL.toMillis());
        }
        return true;
    }

    /** Deletes the pid file; a stale one is harmless anyway, as {@link #livePid} checks /proc before trusting it. */
    public void forgetPid() {
        if (pidFile == null) {
            return;
        }
        try {
            Files.deleteIfExists(pidFile);
        } catch (IOException e) {
            // Left behind: livePid() will not trust it.
        }
    }

    /** Null when the node answers {@code GET /ready} with 200 now; otherwise what it answered, or why it could not. */
    public String readiness(HttpClient http) {
        URI uri = URI.create("http://" + ports.httpAddress() + "/ready");
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(PROBE_TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                return null;
            }
            return "GET " + uri + " answered " + r.statusCode() + " " + r.body().trim();
        } catch (IOException e) {
            return "GET " + uri + " failed: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /**
     * Waits until the node answers {@code /ready} with 200; fails at once when its process exits, with the end of
     * its log, and after {@code timeout} with what it last answered.
     */
    public void awaitReady(HttpClient http, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!isAlive()) {
                OptionalInt status = exitStatus();
                throw new IOException("node process exited" + (status.isPresent() ? " with status "
                        + status.getAsInt() : "") + " before it was ready; the end of its log " + log + ":\n"
                        + lastLines(FAILED_START_LOG_LINES));
            }
            String why = readiness(http);
            if (why == null) {
                return;
            }
            if (System.nanoTime() >= deadline) {
                throw new IOException("node not ready within " + timeout.toSeconds() + " s: " + why);
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for " + ports.httpAddress() + "/ready");
            }
        }
    }

    /** What the node printed since it was last launched (its whole log when no launch line is found). */
    public List<String> logSinceLaunch() throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        int from = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(LAUNCH_MARK)) {
                from = i + 1;
            }
        }
        return lines.subList(from, lines.size());
    }

    private String lastLines(int n) {
        try {
            List<String> run = logSinceLaunch();
            return String.join("\n", run.subList(Math.max(0, run.size() - n), run.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** True when process {@code pid} is alive and its command line has {@code --data-dir} this node's data dir. */
    private boolean runsDataDir(long pid) {
        List<String> args = cmdline(pid);
        // A process that is exec'ing (setsid becoming java) briefly shows an empty command line: look again.
        for (int retry = 0; args.isEmpty() && retry < 20 && Files.exists(Path.of("/proc", Long.toString(pid)));
                retry++) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            args = cmdline(pid);
        }
        String dir = dataDir.toString();
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).equals("--data-dir") && args.get(i + 1).equals(dir)) {
                return true;
            }
        }
        return false;
    }

    /** The arguments of process {@code pid} from /proc; empty for a process that is gone (or a zombie). */
    public static List<String> cmdline(long pid) {
        byte[] raw;
        try {
            raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
        } catch (IOException e) {
            return List.of();
        }
        if (raw.length == 0) {
            return List.of();
        }
        String all = new String(raw, StandardCharsets.UTF_8);
        if (all.endsWith("\0")) {
            all = all.substring(0, all.length() - 1);
        }
        return List.of(all.split("\0", -1));
    }

    /** The process's resident set size in KiB (VmRSS in /proc/PID/status), or -1 when it cannot be read. */
    public static long rssKib(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // Gone, or not Linux.
        }
        return -1;
    }

    /**
     * Sends a signal by name with kill(1): Java's ProcessHandle can send only TERM and KILL. Waits for kill(1) even
     * when the thread is interrupted (and keeps the interrupt for the caller), so that signals sent one after another
     * arrive in order: a CONT that overtook its STOP would leave a node paused.
     */
    public static boolean sendSignal(long pid, String signal) {
        boolean interrupted = Thread.interrupted();
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try {
                    if (!kill.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        kill.destroyForcibly();
                        return false;
                    }
                    return kill.exitValue() == 0;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (IOException e) {
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
