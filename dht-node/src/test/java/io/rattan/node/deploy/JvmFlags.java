package io.rattan.node.deploy;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * The heap a JVM takes from its flags, in the order HotSpot reads them: {@code JAVA_TOOL_OPTIONS} first, then the
 * command line (the image's entrypoint), the later of two settings winning; an {@code -Xmx} wins over any
 * {@code -XX:MaxRAMPercentage}, whose default is 25.
 */
final class JvmFlags {

    private static final double DEFAULT_PERCENTAGE = 25;

    private JvmFlags() {
    }

    /** The largest heap, in bytes, {@code flags} give a JVM in a container whose memory limit is {@code limit}. */
    static double maxHeapBytes(List<String> flags, Quantity limit) {
        Long xmx = null;
        double percentage = DEFAULT_PERCENTAGE;
        for (String f : flags) {
            if (f.startsWith("-Xmx")) {
                xmx = bytes(f.substring(4));
            } else if (f.startsWith("-XX:MaxHeapSize=")) {
                xmx = bytes(f.substring("-XX:MaxHeapSize=".length()));
            } else if (f.startsWith("-XX:MaxRAMPercentage=")) {
                percentage = Double.parseDouble(f.substring("-XX:MaxRAMPercentage=".length()));
            }
        }
        if (xmx != null) {
            return xmx;
        }
        BigDecimal memory = Quantity.getAmountInBytes(limit);
        return memory.doubleValue() * percentage / 100;
    }

    private static long bytes(String size) {
        String s = size.toLowerCase(Locale.ROOT);
        long unit = switch (s.charAt(s.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            case 't' -> 1L << 40;
            default -> 1;
        };
        return Long.parseLong(unit == 1 ? s : s.substring(0, s.length() - 1)) * unit;
    }
}
