package io.rattan.bench.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * A report's plots of its window, as PNGs in the run directory: each mode's latency by percentile, each mode's p99
 * over time, and gets and puts per second over time.
 */
final class ReportPlots {

    /** The plots' file names, in the order the HTML report shows them. */
    static final String[] FILES = {"latency-cdf.png", "p99-over-time.png", "throughput.png"};
    private static final int TIME_POINTS_MAX = 300;

    private ReportPlots() {
    }

    /** Writes the three plots of {@code window} to {@code runDir}. */
    static void write(RunWindow window, Path runDir) throws IOException {
        latencyCdf(window).write(runDir.resolve(FILES[0]));
        double bucket = bucketSeconds(window);
        LinePlot p99 = new LinePlot("Get p99 over time (corrected)", "seconds since the run began",
                LinePlot.Scale.LINEAR, "p99 (ms)", LinePlot.Scale.LOG);
        LinePlot rate = new LinePlot("Throughput", "seconds since the run began", LinePlot.Scale.LINEAR,
                "operations per second", LinePlot.Scale.LINEAR);
        Map<Double, double[]> allGets = new TreeMap<>();
        for (String m : window.modes()) {
            List<double[]> pts = new ArrayList<>();
            for (Map.Entry<Double, Histogram> e : window.bucketed(RunLog.GET_TAG + m, bucket).entrySet()) {
                Histogram h = e.getValue();
                if (h.getTotalCount() > 0) {
                    pts.add(new double[] {e.getKey(), h.getValueAtPercentile(99) / 1000.0});
                }
                allGets.computeIfAbsent(e.getKey(), k -> new double[1])[0] += h.getTotalCount() / bucket;
            }
            p99.add(series(m, pts));
        }
        List<double[]> getRate = new ArrayList<>();
        allGets.forEach((t, v) -> getRate.add(new double[] {t, v[0]}));
        rate.add(series("gets", getRate));
        List<double[]> putRate = new ArrayList<>();
        window.bucketed(RunLog.PUT_TAG, bucket).forEach((t, h) -> putRate.add(new double[] {t,
            h.getTotalCount() / bucket}));
        rate.add(series("puts", putRate));
        p99.write(runDir.resolve(FILES[1]));
        rate.write(runDir.resolve(FILES[2]));
    }

    private static LinePlot latencyCdf(RunWindow window) {
        LinePlot cdf = new LinePlot("Get latency by percentile (corrected)", "percentile",
                LinePlot.Scale.LOG_PERCENTILE, "latency (ms)", LinePlot.Scale.LOG);
        for (String m : window.modes()) {
            Histogram h = window.corrected(m);
            List<double[]> pts = new ArrayList<>();
            long seen = 0;
            long total = h.getTotalCount();
            for (HistogramIterationValue v : h.recordedValues()) {
                seen += v.getCountAtValueIteratedTo();
                // The largest sample sits at 1 - 1/n, not at 100 %, which a log percentile axis cannot show.
                double q = seen == total ? 1 - 1.0 / total : (double) seen / total;
                pts.add(new double[] {100.0 * q, h.highestEquivalentValue(v.getValueIteratedTo()) / 1000.0});
            }
            cdf.add(series(m, pts));
        }
        return cdf;
    }

    /** Long windows are merged into at most {@link #TIME_POINTS_MAX} points, never finer than one interval. */
    private static double bucketSeconds(RunWindow window) {
        double interval = window.intervalSeconds();
        return Math.max(interval, Math.ceil((window.to() - window.from()) / TIME_POINTS_MAX / interval) * interval);
    }

    private static LinePlot.Series series(String name, List<double[]> pts) {
        double[] x = new double[pts.size()];
        double[] y = new double[pts.size()];
        for (int i = 0; i < pts.size(); i++) {
            x[i] = pts.get(i)[0];
            y[i] = pts.get(i)[1];
        }
        return new LinePlot.Series(name, x, y);
    }
}
