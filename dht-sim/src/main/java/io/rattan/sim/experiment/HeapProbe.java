package io.rattan.sim.experiment;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;

/** What a run costs the JVM: retained and peak heap, CPU time. */
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
