package dev.weft.lab;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;

/**
 * Reads this JVM's collector pauses, heap peak and allocated bytes from its MXBeans, so that each
 * variant's {@link Memory} is measured the same way in the scenario's JVM and in helper JVMs.
 *
 * <pre>{@code
 * MemoryMeter.Mark mark = MemoryMeter.mark();
 * runTheVariant();
 * Memory m = mark.since("scenario");
 * }</pre>
 *
 * <p>The heap peak is global: {@link #mark()} resets every heap pool's peak, so two windows that
 * overlap share one peak. Allocated bytes come from {@code com.sun.management.ThreadMXBean}:
 * {@code getTotalThreadAllocatedBytes()} (every thread that ever ran, carriers included, so a virtual
 * thread's allocations count), or where that is unsupported the sum of {@code getThreadAllocatedBytes}
 * over the live threads (missing threads that ended in the window).
 */
public final class MemoryMeter {

    private static final com.sun.management.ThreadMXBean THREADS = threads();

    private MemoryMeter() {}

    /**
     * A point to measure from.
     *
     * @param gcPauseMs      the collector's pause total so far
     * @param gcCount        the collections so far
     * @param allocatedBytes the bytes allocated so far, or -1 when unknown
     */
    public record Mark(double gcPauseMs, long gcCount, long allocatedBytes) {

        /** What the JVM did since this mark; {@code jvm} names the JVM (see {@link Memory#jvm()}). */
        public Memory since(String jvm) {
            Mark now = now();
            Long alloc = allocatedBytes < 0 || now.allocatedBytes < 0 ? null : now.allocatedBytes - allocatedBytes;
            return new Memory(now.gcPauseMs - gcPauseMs, now.gcCount - gcCount, peakHeapBytes(), alloc, jvm);
        }
    }

    /** Resets the heap's peak and returns the current totals: the start of a window. */
    public static Mark mark() {
        for (MemoryPoolMXBean pool : heapPools()) {
            pool.resetPeakUsage();
        }
        return now();
    }

    /** The current totals, without resetting the peak. */
    public static Mark now() {
        double pauseMs = 0;
        long count = 0;
        for (GarbageCollectorMXBean gc : pauseBeans()) {
            pauseMs += Math.max(0, gc.getCollectionTime());
            count += Math.max(0, gc.getCollectionCount());
        }
        return new Mark(pauseMs, count, allocatedBytes());
    }

    /**
     * Bytes allocated on the heap by this JVM's threads so far (ended threads included where the JVM
     * supports it), or -1 when it cannot tell.
     */
    public static long allocatedBytes() {
        if (THREADS == null
                || !THREADS.isThreadAllocatedMemorySupported()
                || !THREADS.isThreadAllocatedMemoryEnabled()) {
            return -1;
        }
        try {
            return THREADS.getTotalThreadAllocatedBytes();
        } catch (UnsupportedOperationException e) {
            long sum = 0;
            for (long bytes : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
                sum += Math.max(0, bytes);
            }
            return sum;
        }
    }

    /** The sum of every heap pool's peak usage since the last {@link #mark()} (or the JVM's start). */
    public static long peakHeapBytes() {
        long sum = 0;
        for (MemoryPoolMXBean pool : heapPools()) {
            sum += pool.getPeakUsage() == null ? 0 : pool.getPeakUsage().getUsed();
        }
        return sum;
    }

    /**
     * The beans whose times are pauses: ZGC and Shenandoah also have beans for their concurrent
     * cycles ("... Cycles"), which are not pauses, beside their "... Pauses" beans; every bean of the
     * other collectors (G1's young, old and "Concurrent GC" remark/cleanup beans, Parallel, Serial)
     * times pauses.
     */
    static List<GarbageCollectorMXBean> pauseBeans() {
        List<GarbageCollectorMXBean> all = ManagementFactory.getGarbageCollectorMXBeans();
        List<GarbageCollectorMXBean> pauses =
                all.stream().filter(b -> b.getName().endsWith("Pauses")).toList();
        return pauses.isEmpty() ? all : pauses;
    }

    private static List<MemoryPoolMXBean> heapPools() {
        return ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP)
                .toList();
    }

    private static com.sun.management.ThreadMXBean threads() {
        return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t ? t : null;
    }
}
