package io.rattan.sim.experiment;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/** What a run costs the JVM (retained and peak heap, CPU time), and which JVM it ran on. */
final class HeapProbe {

    private HeapProbe() {
    }

    /**
     * Heap still in use after full collections: what live objects retain. Several rounds, because one System.gc()
     * may leave garbage that finalisation or reference processing only frees in the next.
     */
    static long retainedBytes() {
        Runtime rt = Runtime.getRuntime();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            best = Math.min(best, rt.totalMemory() - rt.freeMemory());
        }
        return best;
    }

    /** The sum of the heap pools' peak usage since the JVM started. */
    static long peakBytes() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak;
    }

    /**
     * The JVM a run's speed belongs to: version, collectors, maximum heap and whether transparent huge pages were
     * asked for (the launcher's defaults for the simulator; a run under other flags is not comparable).
     */
    static String jvm() {
        StringBuilder collectors = new StringBuilder();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collectors.append(collectors.length() == 0 ? "" : " + ").append(gc.getName());
        }
        String hugePages = "unknown";
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        if (hotspot != null) {
            try {
                hugePages = hotspot.getVMOption("UseTransparentHugePages").getValue();
            } catch (IllegalArgumentException notOnThisPlatform) {
                hugePages = "n/a";
            }
        }
        return String.format(Locale.ROOT, "Java %s, %s, max heap %d MiB, transparent huge pages %s",
                Runtime.version(), collectors, Runtime.getRuntime().maxMemory() >> 20, hugePages);
    }

    /** CPU time of the whole process (every thread: the simulation, the collector, the compiler), or -1. */
    static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** CPU time of the calling thread, the one the simulation runs on, or -1. */
    static long threadCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
    }
}
