package io.rattan.sim.experiment;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/** The latency CDF of every mode as a PNG, log-scale x from 1 ms to the largest latency, drawn with Java2D. */
final class CdfPlot {

    private static final int W = 1000;
    private static final int H = 640;
    private static final int LEFT = 70;
    private static final int RIGHT = 200;
    private static final int TOP = 30;
    private static final int BOTTOM = 60;
    private static final int PLOT_W = W - LEFT - RIGHT;
    private static final int PLOT_H = H - TOP - BOTTOM;
    private static final Color[] COLORS = {new Color(0xd62728), new Color(0x1f77b4), new Color(0x2ca02c),
        new Color(0x9467bd), new Color(0xff7f0e), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf),
        new Color(0x7f7f7f)};

    private CdfPlot() {
    }

    /** @param latencies one histogram (microseconds) per row, in the rows' order */
    static void write(List<OpenDhtTable.Row> rows, List<Histogram> latencies, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, W, H);
            double maxMs = 10;
            for (Histogram h : latencies) {
                maxMs = Math.max(maxMs, h.getMaxValue() / 1000.0);
            }
            double decades = Math.ceil(Math.log10(maxMs));
            drawAxes(g, decades);
            g.setStroke(new BasicStroke(2f));
            for (int i = 0; i < rows.size(); i++) {
                g.setColor(COLORS[i % COLORS.length]);
                drawCurve(g, latencies.get(i), decades);
                int ly = TOP + 20 + 20 * i;
                g.drawLine(W - RIGHT + 15, ly - 4, W - RIGHT + 40, ly - 4);
                g.drawString(rows.get(i).mode(), W - RIGHT + 48, ly);
            }
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", file.toFile());
    }

    /** Grid lines at every decade and tenth, their labels, the frame and the axis titles. */
    private static void drawAxes(Graphics2D g, double decades) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.setColor(new Color(0xdddddd));
        for (int d = 0; d <= decades; d++) {
            int x = LEFT + (int) (PLOT_W * d / decades);
            g.drawLine(x, TOP, x, TOP + PLOT_H);
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%.0f", Math.pow(10, d)), x - 8, TOP + PLOT_H + 18);
            g.setColor(new Color(0xdddddd));
        }
        for (int q = 0; q <= 10; q++) {
            int y = TOP + PLOT_H - PLOT_H * q / 10;
            g.drawLine(LEFT, y, LEFT + PLOT_W, y);
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%.1f", q / 10.0), LEFT - 30, y + 4);
            g.setColor(new Color(0xdddddd));
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, TOP, PLOT_W, PLOT_H);
        g.drawString("get latency (ms, log scale)", LEFT + PLOT_W / 2 - 70, H - 20);
        g.drawString("fraction of gets", 8, TOP - 10);
    }

    /** One histogram's CDF as steps, in the current colour; nothing for an empty one. */
    private static void drawCurve(Graphics2D g, Histogram h, double decades) {
        long total = h.getTotalCount();
        if (total == 0) {
            return;
        }
        long seen = 0;
        int px = LEFT;
        int py = TOP + PLOT_H;
        for (HistogramIterationValue v : h.recordedValues()) {
            seen += v.getCountAtValueIteratedTo();
            double ms = Math.max(1, h.highestEquivalentValue(v.getValueIteratedTo()) / 1000.0);
            int x = LEFT + (int) (PLOT_W * Math.log10(ms) / decades);
            int y = TOP + PLOT_H - (int) (PLOT_H * (double) seen / total);
            g.drawLine(px, py, x, py);
            g.drawLine(x, py, x, y);
            px = x;
            py = y;
        }
    }
}
