package dev.weft.pool;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A pool's options, fixed when {@link Pool.Builder#build()} runs (each one is described and
 * checked on the Builder). Durations that turn a feature off are zero; the rest are nanoseconds.
 *
 * @param bargeBound how many borrowers that arrive later may overtake the longest-waiting one
 *                   (decision 0603: the pool's size)
 */
record PoolConfig<T>(
        String name,
        ResourceFactory<T> factory,
        int maxSize,
        int minIdle,
        int maxCreating,
        Duration maxWait,
        long maxLifetime,
        long idleTimeout,
        long validateAfter,
        long leakThreshold,
        Duration closeTimeout,
        Consumer<? super LeakReport> onLeak,
        int bargeBound) {

    PoolConfig {
        if (minIdle > maxSize) {
            throw new IllegalArgumentException("minIdle (" + minIdle + ") must not exceed maxSize (" + maxSize + ")");
        }
    }

    /** How often housekeeping runs: a quarter of the shortest timed option, 10 ms..30 s; 0: never. */
    long housekeepingPeriod() {
        long p = Long.MAX_VALUE;
        for (long d : new long[] {maxLifetime, idleTimeout, leakThreshold}) {
            if (d > 0) {
                p = Math.min(p, d / 4);
            }
        }
        if (minIdle > 0) {
            p = Math.min(p, TimeUnit.SECONDS.toNanos(5));
        }
        if (p == Long.MAX_VALUE) {
            return 0;
        }
        return Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(p, TimeUnit.SECONDS.toNanos(30)));
    }

    /** {@code now} is past the resource's maxLifetime. */
    boolean expired(Slot<T> s, long now) {
        return maxLifetime > 0 && now - s.createdAt >= maxLifetime;
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE / 2;
        }
    }
}
