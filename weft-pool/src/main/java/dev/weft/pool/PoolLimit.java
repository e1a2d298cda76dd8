package dev.weft.pool;

import dev.weft.limit.AdaptiveLimit;
import dev.weft.limit.Limiter;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An admission limit that follows a {@link Pool}'s pressure: it lets in the pool's size plus a
 * bounded queue, the queue being what the pool serves within {@code targetWait} at the rate it is
 * serving now. With a {@link Limiter} that never waits ({@link #limiter(Pool, Duration)}), what is
 * over it is shed at once (weft-ring answers 503 with {@code Retry-After}) instead of parking in
 * the pool until its client has given up.
 *
 * <pre>{@code
 * Limiter admission = PoolLimit.limiter(pool, Duration.ofMillis(50));   // or dataSource.pool()
 * Row row = admission.call(() -> query(id));    // LimitExceededException when the pool is saturated
 * }</pre>
 *
 * <p>Model (decision 0900). Every {@value #REFRESH_MILLIS} ms at most, on the thread that asks
 * for the limit, it reads the pool's {@link PoolStats}: the successful borrows since the last
 * reading give the rate at which the pool serves (its throughput, Little's law), and the limit
 * becomes {@code maxSize + round(rate * targetWait)}. The rate is lowered only while the pool is
 * under pressure (borrowers waited or timed out since the last reading): an idle pool keeps its
 * last rate, so a burst after a quiet spell is not shed for want of a measurement. Before the
 * first measurement under load the queue is the pool's size (the limit is twice it). The limit
 * counts every caller of the limiter, whichever entry point it comes through (a server, a queue
 * consumer, a job), so one limiter may guard them all.
 *
 * <p>While the pool is being created (no resource open yet) the limit is that first guess. While
 * its database restarts, borrows stop succeeding and borrowers wait or time out: the rate falls to
 * 0 and the limit to the pool's size, so only that many callers wait (each at most the pool's
 * {@code maxWait}) and the rest are shed at once; as borrows succeed again the rate, and the
 * queue, come back. Once the pool is closed, borrows fail at once with {@link PoolClosedException}
 * (nobody waits), and the limit stays where it was.
 *
 * <p>Thread-safe; {@link #limit()} never blocks on anything but the pool's lock, held briefly,
 * and at most once per {@value #REFRESH_MILLIS} ms.
 */
public final class PoolLimit implements AdaptiveLimit {

    /** The longest the limit goes between two readings of the pool's statistics, in milliseconds. */
    public static final int REFRESH_MILLIS = 100;

    private static final long REFRESH_NANOS = REFRESH_MILLIS * 1_000_000L;
    private static final int MAX_QUEUE = 1 << 20; // keeps maxSize + queue an int whatever the rate

    private final Pool<?> pool;
    private final long targetNanos;
    private final AtomicBoolean refreshing = new AtomicBoolean();

    // Written only by the thread that won `refreshing`; read by every caller.
    private volatile int limit;
    private volatile double ratePerSecond = -1; // -1: not measured under load yet
    private volatile long lastNanos;
    private long lastBorrows;
    private long lastTimeouts;

    private PoolLimit(Pool<?> pool, Duration targetWait) {
        this.pool = Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(targetWait, "targetWait");
        if (targetWait.isNegative()) {
            throw new IllegalArgumentException(
                    "pool limit of \"" + pool.name() + "\": the target wait must not be negative; got " + targetWait
                            + " (0 admits the pool's size and queues nothing)");
        }
        if (pool.isClosed()) {
            throw new IllegalArgumentException(
                    "pool limit of \"" + pool.name() + "\": the pool is closed; build the limit"
                            + " from the pool the requests will borrow from, while it is open");
        }
        this.targetNanos = targetWait.toNanos();
        PoolStats s = pool.stats();
        this.lastNanos = System.nanoTime();
        this.lastBorrows = s.borrows();
        this.lastTimeouts = s.timeouts();
        this.limit = s.maxSize() + firstQueue(s.maxSize());
    }

    /**
     * A limit following {@code pool}, with a queue sized to what the pool serves within
     * {@code targetWait}.
     *
     * @throws IllegalArgumentException if {@code targetWait} is negative or the pool is closed
     * @throws NullPointerException     if an argument is null
     */
    public static PoolLimit of(Pool<?> pool, Duration targetWait) {
        return new PoolLimit(pool, targetWait);
    }

    /**
     * A limiter named after {@code pool} that admits by {@link #of(Pool, Duration)} and never
     * waits: a caller over the limit gets a {@link dev.weft.limit.LimitExceededException} at once
     * (the queue is the pool's own). Share it between every entry point that uses the pool.
     *
     * @throws IllegalArgumentException if {@code targetWait} is negative or the pool is closed
     * @throws NullPointerException     if an argument is null
     */
    public static Limiter limiter(Pool<?> pool, Duration targetWait) {
        return Limiter.builder(pool.name(), of(pool, targetWait)).maxWaiting(0).build();
    }

    /** How many callers may be in now: the pool's size plus the queue it serves within the target wait. */
    @Override
    public int limit() {
        long now = System.nanoTime();
        if (now - lastNanos >= REFRESH_NANOS && refreshing.compareAndSet(false, true)) {
            try {
                refresh(now);
            } finally {
                refreshing.set(false);
            }
        }
        return limit;
    }

    /** Nothing: the limit follows the pool's statistics, not the callers' latencies. */
    @Override
    public void onSample(long startNanos, long latencyNanos, int inFlight, boolean dropped) {}

    /** The pool this limit follows. */
    public Pool<?> pool() {
        return pool;
    }

    /** The longest a caller let in should wait for a resource. */
    public Duration targetWait() {
        return Duration.ofNanos(targetNanos);
    }

    /**
     * The rate at which the pool served borrows when last measured under pressure, per second,
     * or -1 before any such measurement.
     */
    public double rate() {
        return ratePerSecond;
    }

    @Override
    public String toString() {
        return "PoolLimit[" + pool.name() + ": " + limit + " (" + pool.maxSize() + " + queue), target wait "
                + targetWait() + "]";
    }

    private void refresh(long now) {
        if (now - lastNanos < REFRESH_NANOS) {
            return; // another caller refreshed between this one's check and its turn
        }
        if (pool.isClosed()) {
            return; // borrows fail at once: nothing waits, the limit has nothing left to follow
        }
        PoolStats s = pool.stats();
        long elapsed = now - lastNanos;
        lastNanos = now;
        long served = s.borrows() - lastBorrows;
        long timedOut = s.timeouts() - lastTimeouts;
        lastBorrows = s.borrows();
        lastTimeouts = s.timeouts();
        double rate = served * 1e9 / Math.max(1, elapsed);
        boolean pressed = s.waiting() > 0 || timedOut > 0;
        double current = ratePerSecond;
        if (pressed || rate > current) {
            // Under pressure the pool serves as fast as it can: what it served is its capacity now
            // (0 while its database is down). Idle, it served only what came: keep the old rate
            // unless this one is higher.
            ratePerSecond = rate;
            current = rate;
        }
        int queue = current < 0 ? firstQueue(s.maxSize()) : queueFor(current);
        limit = s.maxSize() + queue;
    }

    /** The queue before any measurement: as long as the pool (none with a zero target). */
    private int firstQueue(int maxSize) {
        return targetNanos == 0 ? 0 : maxSize;
    }

    private int queueFor(double rate) {
        double q = rate * targetNanos / 1e9;
        return (int) Math.min(MAX_QUEUE, Math.round(q));
    }
}
