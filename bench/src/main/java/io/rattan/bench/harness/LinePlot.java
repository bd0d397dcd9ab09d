package io.rattan.bench.harness;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * A line chart as a PNG, drawn with Java2D the way the simulator draws its CDF ({@code CdfPlot}): white
 * background, light grid, a legend on the right. The x axis is linear or a log percentile axis (x = q is placed at
 * log10(1 / (1 − q)), so 90, 99, 99.9 and 99.99 are evenly spaced); the y axis linear or log10.
 */
final class LinePlot {

    /** How an axis maps values to pixels. */
    enum Scale { LINEAR, LOG, LOG_PERCENTILE }

    /** One named line; x and y of equal length. */
    record Series(String name, double[] x, double[] y) {
    }

    private static final int W = 1000;
    private static final int H = 600;
    private static final int LEFT = 80;
    private static final int RIGHT = 220;
    private static final int TOP = 56;
    private static final int BOTTOM = 60;
    private static final Color GRID = new Color(0xdddddd);
    private static final Color[] COLORS = {new Color(0xd62728), new Color(0x1f77b4), new Color(0x2ca02c),
        new Color(0x9467bd), new Color(0xff7f0e), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf),
        new Color(0x7f7f7f), new Color(0xbcbd22)};
    /** The log percentile axis ends at 99.999 %: five nines need 100,000 samples to mean anything. */
    private static final double PERCENTILE_DECADES_MAX = 5;

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final Scale xScale;
    private final Scale yScale;
    private final List<Series> series = new ArrayList<>();

    LinePlot(String title, String xLabel, Scale xScale, String yLabel, Scale yScale) {
        this.title = title;
        this.xLabel = xLabel;
        this.xScale = xScale;
        this.yLabel = yLabel;
        this.yScale = yScale;
    }

    LinePlot add(Series s) {
        series.add(s);
        return this;
    }

    void write(Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        double[] xr = range(true);
        double[] yr = range(false);
        BufferedImage image = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, W, H);
            drawAxes(g, xr, yr);
            drawSeries(g, xr, yr);
            drawLegend(g);
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", file.toFile());
    }

    private void drawAxes(Graphics2D g, double[] xr, double[] yr) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int plotW = W - LEFT - RIGHT;
        int plotH = H - TOP - BOTTOM;
        for (double t : ticks(xScale, xr)) {
            int x = LEFT + (int) Math.round(plotW * frac(xScale, t, xr));
            g.setColor(GRID);
            g.drawLine(x, TOP, x, TOP + plotH);
            g.setColor(Color.BLACK);
            String label = label(xScale, t);
            g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, TOP + plotH + 18);
        }
        for (double t : ticks(yScale, yr)) {
            int y = TOP + plotH - (int) Math.round(plotH * frac(yScale, t, yr));
            g.setColor(GRID);
            g.drawLine(LEFT, y, LEFT + plotW, y);
            g.setColor(Color.BLACK);
            String label = label(yScale, t);
            g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), y + 4);
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, TOP, plotW, plotH);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(title, LEFT + plotW / 2 - g.getFontMetrics().stringWidth(title) / 2, 22);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString(xLabel, LEFT + plotW / 2 - g.getFontMetrics().stringWidth(xLabel) / 2, H - 18);
        g.drawString(yLabel, 8, TOP - 12);
    }

    private void drawSeries(Graphics2D g, double[] xr, double[] yr) {
        int plotW = W - LEFT - RIGHT;
        int plotH = H - TOP - BOTTOM;
        g.setStroke(new BasicStroke(2f));
        g.setClip(LEFT, TOP, plotW + 1, plotH + 1);
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            g.setColor(COLORS[i % COLORS.length]);
            int px = -1;
            int py = -1;
            for (int j = 0; j < s.x().length; j++) {
                if (!usable(xScale, s.x()[j]) || !usable(yScale, s.y()[j])) {
                    px = -1;
                    continue;
                }
                int x = LEFT + (int) Math.round(plotW * frac(xScale, s.x()[j], xr));
                int y = TOP + plotH - (int) Math.round(plotH * frac(yScale, s.y()[j], yr));
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                } else if (s.x().length == 1) {
                    g.fillOval(x - 3, y - 3, 6, 6);
                }
                px = x;
                py = y;
            }
        }
        g.setClip(null);
    }

    private void drawLegend(Graphics2D g) {
        for (int i = 0; i < series.size(); i++) {
            int ly = TOP + 20 + 20 * i;
            g.setColor(COLORS[i % COLORS.length]);
            g.drawLine(W - RIGHT + 15, ly - 4, W - RIGHT + 40, ly - 4);
            g.setColor(Color.BLACK);
            g.drawString(series.get(i).name(), W - RIGHT + 48, ly);
        }
    }

    private static boolean usable(Scale scale, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return false;
        }
        return scale != Scale.LOG || v > 0;
    }

    /** Where {@code v} falls between the ends of {@code range}, 0..1, in the axis's own terms. */
    private static double frac(Scale scale, double v, double[] range) {
        double a = axis(scale, range[0]);
        double b = axis(scale, range[1]);
        return b == a ? 0.5 : (axis(scale, v) - a) / (b - a);
    }

    private static double axis(Scale scale, double v) {
        switch (scale) {
            case LOG:
                return Math.log10(v);
            case LOG_PERCENTILE:
                return Math.min(PERCENTILE_DECADES_MAX, -Math.log10(Math.max(1e-12, 1 - v / 100)));
            default:
                return v;
        }
    }

    /** The data's range on one axis, widened to whole decades on log axes. */
    private double[] range(boolean x) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        Scale scale = x ? xScale : yScale;
        for (Series s : series) {
            for (double v : x ? s.x() : s.y()) {
                if (usable(scale, v)) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        if (lo == Double.POSITIVE_INFINITY) {
            lo = scale == Scale.LOG ? 1 : 0;
            hi = scale == Scale.LOG ? 10 : 1;
        }
        switch (scale) {
            case LOG:
                return new double[] {Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(
                        Math.log10(hi) + 1e-9))};
            case LOG_PERCENTILE:
                double decades = Math.min(PERCENTILE_DECADES_MAX, Math.ceil(axis(scale, hi) - 1e-9));
                return new double[] {0, 100 * (1 - Math.pow(10, -Math.max(1, decades)))};
            default:
                return new double[] {Math.min(0, lo), hi > lo ? hi * 1.05 : lo + 1};
        }
    }

    private static List<Double> ticks(Scale scale, double[] range) {
        List<Double> t = new ArrayList<>();
        switch (scale) {
            case LOG:
                for (double v = range[0]; v <= range[1] * 1.0001; v *= 10) {
                    t.add(v);
                }
                return t;
            case LOG_PERCENTILE:
                for (int d = 0; d <= axis(scale, range[1]) + 1e-9; d++) {
                    t.add(100 * (1 - Math.pow(10, -d)));
                }
                return t;
            default:
                double step = niceStep((range[1] - range[0]) / 8);
                for (double v = Math.ceil(range[0] / step) * step; v <= range[1]; v += step) {
                    t.add(v);
                }
                return t;
        }
    }

    private static double niceStep(double raw) {
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        double m = raw / p;
        return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
    }

    private static String label(Scale scale, double v) {
        if (scale == Scale.LOG_PERCENTILE) {
            return new java.math.BigDecimal(v).round(new java.math.MathContext(6)).stripTrailingZeros()
                    .toPlainString() + "%";
        }
        if (Math.abs(v) >= 100 || v == Math.rint(v)) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }
}
