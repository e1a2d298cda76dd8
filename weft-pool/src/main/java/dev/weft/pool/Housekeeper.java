package dev.weft.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The pool's housekeeping, on one virtual thread of its own that wakes every
 * {@link PoolConfig#housekeepingPeriod()}: destroys idle resources past {@code maxLifetime} (and
 * retires borrowed ones past it, for their return to destroy), and
 * those idle longer than {@code idleTimeout} (least recently used first) while more than
 * {@code minIdle} are idle; reports borrows held longer than {@code leakThreshold}, once each;
 * and tops the pool up to {@code minIdle}. It takes a resource out only by the hand-off's CAS
 * from IDLE, so it never races a borrower for one.
 */
final class Housekeeper<T> {

    private static final System.Logger LOG = System.getLogger(Pool.class.getName());

    private final Pool<T> pool;
    private final PoolConfig<T> config;
    private final HandOff<T> kernel;
    private final Creators<T> creators;
    private final PoolCounters counters;
    private final Thread thread;

    Housekeeper(Pool<T> pool, PoolConfig<T> config, HandOff<T> kernel, Creators<T> creators, PoolCounters counters) {
        this.pool = pool;
        this.config = config;
        this.kernel = kernel;
        this.creators = creators;
        this.counters = counters;
        long period = config.housekeepingPeriod();
        this.thread = period == 0
                ? null
                : Thread.ofVirtual()
                        .name("weft-pool-" + config.name() + "-housekeeper")
                        .unstarted(() -> run(period));
    }

    void start() {
        if (thread != null) {
            thread.start();
        }
    }

    /** Interrupts the thread; join it with {@link #join}. */
    void stop() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    void join(Duration atMost) throws InterruptedException {
        if (thread != null) {
            thread.join(atMost);
        }
    }

    private void run(long period) {
        while (!kernel.isClosed()) {
            try {
                Thread.sleep(Duration.ofNanos(period));
            } catch (InterruptedException e) {
                return;
            }
            evict(System.nanoTime());
            reportLeaks(System.nanoTime());
            creators.fill();
        }
    }

    /**
     * One eviction pass at {@code now}. A return reads no clock, so idleness is what this pass
     * sees: a slot counts as idle since the first pass that found it idle with the same
     * {@link Slot#lastBorrowed} (a borrow since changes it), up to one period later than it was
     * returned. A borrowed slot past maxLifetime is retired: its return destroys it.
     */
    void evict(long now) {
        Slot<T>[] slots = kernel.slots();
        List<Slot<T>> idle = new ArrayList<>();
        for (Slot<T> s : slots) {
            int state = s.state();
            long borrowed = s.lastBorrowed; // racy: a stale or torn value only restarts the count
            if (state == Slot.IDLE) {
                if (s.idleSince == Slot.NOT_SEEN_IDLE || s.idleSeenBorrowed != borrowed) {
                    s.idleSince = now;
                    s.idleSeenBorrowed = borrowed;
                }
                idle.add(s);
            } else {
                s.idleSince = Slot.NOT_SEEN_IDLE;
                if (state == Slot.BORROWED && config.expired(s, now)) {
                    s.retired = true;
                }
            }
        }
        // Longest idle first: first seen idle earliest, then borrowed longest ago.
        idle.sort(Comparator.<Slot<T>>comparingLong(s -> s.idleSince).thenComparingLong(s -> s.idleSeenBorrowed));
        int left = idle.size();
        List<Slot<T>> evicted = new ArrayList<>();
        for (Slot<T> s : idle) {
            boolean stale =
                    config.idleTimeout() > 0 && now - s.idleSince >= config.idleTimeout() && left > config.minIdle();
            if ((config.expired(s, now) || stale) && kernel.remove(s, Slot.IDLE)) {
                evicted.add(s);
                left--;
            }
        }
        pool.destroy(evicted, "evicted");
    }

    private void reportLeaks(long now) {
        if (config.leakThreshold() <= 0) {
            return;
        }
        for (Slot<T> s : kernel.slots()) {
            StackTraceElement[] stack = s.borrowStack; // volatile: publishes borrowedAt
            if (stack == null || s.leakReported || s.state() != Slot.BORROWED) {
                continue;
            }
            long held = now - s.borrowedAt;
            if (held < config.leakThreshold()) {
                continue;
            }
            s.leakReported = true;
            counters.leaks.increment();
            LeakReport r = new LeakReport(config.name(), Duration.ofNanos(held), s.borrower, Arrays.asList(stack));
            try {
                config.onLeak().accept(r);
            } catch (RuntimeException failure) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "pool \"" + config.name() + "\": the onLeak callback threw",
                        failure);
            }
        }
    }
}
