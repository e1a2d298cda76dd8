package dev.weft.lab.scenarios.http;

import dev.weft.lab.MemoryMeter;

/**
 * The server JVM's allocated bytes over time, so that the bytes allocated inside a load window
 * can be read after it, from the window's wall-clock bounds as the load generator (another JVM, or
 * wrk) reports them: a platform daemon thread reads {@link MemoryMeter#allocatedBytes()} every
 * {@value #PERIOD_MS} ms, and {@link #bytesBetween} interpolates linearly between the readings
 * around each bound (a bound 10 ms off in a window of a second moves the figure by about 1%).
 *
 * <p>Only the latest {@value #CAPACITY} readings are kept (ten minutes, 960 KB), longer than any
 * pair of servers is measured: the scenario asks for a pair's rounds after the last of them, and a
 * full-mode pair that runs 16 rounds of 6 s had lost its first rounds' readings when this kept a
 * minute and a half.
 */
final class AllocationTimeline {

    static final int PERIOD_MS = 10;
    static final int CAPACITY = 60_000;

    private final long[] times = new long[CAPACITY];
    private final long[] bytes = new long[CAPACITY];
    private long count;

    /** An empty timeline that nothing samples into; {@link #start} starts the sampling one. */
    AllocationTimeline() {}

    /** Starts sampling this JVM; null when the JVM cannot tell its allocated bytes. */
    static AllocationTimeline start() {
        if (MemoryMeter.allocatedBytes() < 0) {
            return null;
        }
        AllocationTimeline t = new AllocationTimeline();
        Thread.ofPlatform().name("weft-lab-alloc-timeline").daemon(true).start(() -> {
            while (true) {
                t.record(System.currentTimeMillis(), MemoryMeter.allocatedBytes());
                try {
                    Thread.sleep(PERIOD_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        return t;
    }

    synchronized void record(long epochMs, long allocated) {
        int i = (int) (count % CAPACITY);
        times[i] = epochMs;
        bytes[i] = allocated;
        count++;
    }

    /**
     * The bytes allocated between two wall-clock times (epoch milliseconds), or -1 when the readings
     * do not cover both (the window is older than the kept readings, or still running).
     */
    synchronized long bytesBetween(long fromMs, long toMs) {
        long first = Math.max(0, count - CAPACITY);
        if (count < 2 || fromMs > toMs) {
            return -1;
        }
        double from = at(fromMs, first);
        double to = at(toMs, first);
        return Double.isNaN(from) || Double.isNaN(to) ? -1 : Math.round(to - from);
    }

    /**
     * The allocated bytes at {@code ms}, interpolated; NaN outside the readings. Searches the ring
     * in place, readings {@code first} to {@code count - 1} in time order, with no copy of it.
     */
    private double at(long ms, long first) {
        long lo = first;
        long hi = count - 1;
        if (ms < times[slot(lo)] || ms > times[slot(hi)]) {
            return Double.NaN;
        }
        // The last reading at or before ms: times[slot(lo)] <= ms holds throughout.
        while (lo < hi) {
            long mid = (lo + hi + 1) >>> 1;
            if (times[slot(mid)] <= ms) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        int a = slot(lo);
        if (times[a] == ms || lo == count - 1) {
            return bytes[a];
        }
        int b = slot(lo + 1);
        double share = (double) (ms - times[a]) / Math.max(1, times[b] - times[a]);
        return bytes[a] + share * (bytes[b] - bytes[a]);
    }

    private static int slot(long reading) {
        return (int) (reading % CAPACITY);
    }
}
