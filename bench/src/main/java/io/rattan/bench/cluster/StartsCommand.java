package io.rattan.bench.cluster;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.bench.cli.DurationConverter;
import io.rattan.bench.cli.ExitCodes;
import io.rattan.client.RattanClient;
import io.rattan.client.RattanException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rattan cluster starts}: starts a fresh cluster again and again, and after each start puts values with the
 * client's retries off, so that every refusal counts. What it answers: does every start join, how long does it take,
 * and is any put refused once {@code start} has returned.
 */
@Command(name = "starts", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = {"Starts a fresh cluster of N node processes --starts times, each in D/start-K; after each start "
                + "returns it puts --puts values through random gateways with the client's retries off, then stops the "
                + "cluster. Prints each start's time to ready and its refused puts, then a summary.",
            "Exit 1 if any start failed or any put was refused. Takes every option of 'cluster start'."})
final class StartsCommand extends ClusterCommand.Start {

    @Option(names = "--starts", paramLabel = "S", description = "How many starts.")
    int starts = 5;

    @Option(names = "--puts", paramLabel = "P", description = "Puts after each start, all in flight at once.")
    int puts = 200;

    @Option(names = "--put-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long each put may take (its one attempt). A put that takes longer counts as failed "
                    + "(TIMEOUT); on a host shared with other work, give it room, or load is counted as refusal.")
    Duration putTimeout = Duration.ofSeconds(10);

    @Override
    public Integer call() throws IOException {
        ClusterSpec clusterSpec = clusterSpec();
        PrintWriter out = out();
        Path root = dir;
        List<Double> readySeconds = new ArrayList<>();
        Map<String, Integer> refused = new TreeMap<>();
        int failedStarts = 0;
        for (int k = 0; k < starts; k++) {
            ProcessCluster cluster = ProcessCluster.create(root.resolve("start-" + k), clusterSpec,
                    new PrintWriter(PrintWriter.nullWriter()));
            long t0 = System.nanoTime();
            try {
                cluster.start(readyTimeout);
                double seconds = (System.nanoTime() - t0) / 1e9;
                readySeconds.add(seconds);
                Map<String, Integer> mine = putAll(clusterSpec, k);
                mine.forEach((why, n) -> refused.merge(why, n, Integer::sum));
                out.printf(Locale.ROOT, "start %d: %d nodes ready in %.1f s; %d of %d puts refused %s%n", k,
                        clusterSpec.nodes(), seconds, mine.values().stream().mapToInt(Integer::intValue).sum(), puts,
                        mine.isEmpty() ? "" : mine);
            } catch (ClusterException e) {
                failedStarts++;
                out.println("start " + k + ": FAILED: " + e.getMessage());
            } finally {
                cluster.stopAll();
            }
            out.flush();
        }
        int refusedTotal = refused.values().stream().mapToInt(Integer::intValue).sum();
        out.println(summary(readySeconds, failedStarts, refusedTotal, refused));
        out.flush();
        return failedStarts == 0 && refusedTotal == 0 ? 0 : ExitCodes.FAILED;
    }

    /** Puts {@link #puts} values at once through every gateway in turn; what refused them, by status, and how often. */
    private Map<String, Integer> putAll(ClusterSpec clusterSpec, int start) {
        List<Address> gateways = new ArrayList<>();
        for (int i = 0; i < clusterSpec.nodes(); i++) {
            gateways.add(clusterSpec.gateway(i));
        }
        Map<String, Integer> refusals = new TreeMap<>();
        // One client per gateway: the client would otherwise move a refused call to another gateway.
        List<RattanClient> clients = new ArrayList<>();
        try {
            for (Address g : gateways) {
                clients.add(RattanClient.builder().gateway(g).maxRetries(0).attemptTimeout(putTimeout)
                        .totalTimeout(putTimeout).build());
            }
            List<CompletableFuture<?>> calls = new ArrayList<>();
            for (int p = 0; p < puts; p++) {
                byte[] value = ("start " + start + " put " + p).getBytes(StandardCharsets.UTF_8);
                calls.add(clients.get(p % clients.size())
                        .put(Id.ofName("starts-" + start + "-" + p), value, Duration.ofMinutes(10))
                        .handle((ok, failure) -> {
                            if (failure != null) {
                                synchronized (refusals) {
                                    refusals.merge(why(failure), 1, Integer::sum);
                                }
                            }
                            return null;
                        }));
            }
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
        } finally {
            clients.forEach(RattanClient::close);
        }
        return refusals;
    }

    private static String why(Throwable failure) {
        Throwable t = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        return t instanceof RattanException r ? r.status() + ": " + r.getMessage() : t.toString();
    }

    static String summary(List<Double> readySeconds, int failedStarts, int refusedTotal,
                          Map<String, Integer> refused) {
        double[] s = readySeconds.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        String times = s.length == 0 ? "no start succeeded" : String.format(Locale.ROOT,
                "time to ready: min %.1f s, median %.1f s, max %.1f s", s[0], s[s.length / 2], s[s.length - 1]);
        return String.format(Locale.ROOT, "%d of %d starts ready; %s; %d puts refused%s",
                s.length, s.length + failedStarts, times, refusedTotal, refused.isEmpty() ? "" : " " + refused);
    }
}
