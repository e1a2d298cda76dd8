package dev.weft.pool;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Borrow waits, counted in log-linear buckets (8 per power of two, so a percentile is within
 * 12.5% of the true value) without a lock: recording is one atomic increment. A borrow served by
 * the fast path (no queue, no park) counts as a wait of zero; those are counted on the slots
 * themselves ({@link Slot#immediateBorrows}), so the readers pass in the live slots' sum, and
 * a destroyed slot's count is kept here ({@link #retire}).
 */
final class WaitHistogram {

    private static final int SUB_BITS = 3;
    private static final int SUB = 1 << SUB_BITS;
    private final AtomicLongArray counts = new AtomicLongArray(64 * SUB);
    /** Borrows that did not wait, on slots destroyed since. */
    private final LongAdder retired = new LongAdder();

    /** A destroyed slot's borrows that did not wait. */
    void retire(long immediate) {
        retired.add(immediate);
    }

    /**
     * How many waits were recorded (borrows that succeeded), with {@code liveImmediate} borrows
     * that did not wait on the slots still open.
     */
    long count(long liveImmediate) {
        long n = retired.sum() + liveImmediate;
        for (int i = 0; i < counts.length(); i++) {
            n += counts.get(i);
        }
        return n;
    }

    void record(long nanos) {
        counts.incrementAndGet(index(Math.max(0, nanos)));
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exp = 63 - Long.numberOfLeadingZeros(v); // v in [2^exp, 2^(exp+1))
        int sub = (int) ((v >>> (exp - SUB_BITS)) & (SUB - 1));
        return (exp - SUB_BITS + 1) * SUB + sub;
    }

    /** The highest value that lands in bucket {@code i}. */
    static long upper(int i) {
        if (i < SUB) {
            return i;
        }
        int exp = i / SUB + SUB_BITS - 1;
        int sub = i % SUB;
        long base = 1L << exp;
        long step = base >>> SUB_BITS;
        return base + (sub + 1) * step - 1;
    }

    /**
     * The p-th percentiles ({@code ps} in 0..1), in one pass, with {@code liveImmediate} as in
     * {@link #count(long)}.
     */
    Duration[] percentiles(long liveImmediate, double... ps) {
        long[] snap = new long[counts.length()];
        long total = 0;
        for (int i = 0; i < snap.length; i++) {
            snap[i] = counts.get(i) + (i == 0 ? retired.sum() + liveImmediate : 0);
            total += snap[i];
        }
        Duration[] out = new Duration[ps.length];
        for (int k = 0; k < ps.length; k++) {
            if (total == 0) {
                out[k] = Duration.ZERO;
                continue;
            }
            long rank = Math.max(1, (long) Math.ceil(ps[k] * total));
            long seen = 0;
            int i = 0;
            for (; i < snap.length; i++) {
                seen += snap[i];
                if (seen >= rank) {
                    break;
                }
            }
            out[k] = Duration.ofNanos(upper(Math.min(i, snap.length - 1)));
        }
        return out;
    }
}
