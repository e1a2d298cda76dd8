package dev.weft.pool;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The pool's creators: virtual threads of its own that open resources while there is demand
 * (borrowers parked in the {@link HandOff}, or fewer than {@code minIdle} idle), at most
 * {@code maxCreating} at once, retrying a failure with a back-off (10 ms doubling to 1 s) while the
 * demand lasts. {@code total} counts open resources (until destroyed) plus creations in flight,
 * so the pool never holds more than {@code maxSize}. Its own lock guards only its counts; the
 * hand-off's lock is never held here.
 */
final class Creators<T> {

    private static final System.Logger LOG = System.getLogger(Pool.class.getName());
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Pool<T> pool;
    private final PoolConfig<T> config;
    private final HandOff<T> kernel;
    private final PoolCounters counters;
    private final ReentrantLock lock = new ReentrantLock();
    private final Set<Thread> workers = new LinkedHashSet<>();
    /** Written under the lock; read without it by fill()'s early exit. */
    private volatile int total;

    private volatile int creating;
    private boolean stopped;
    /** The last creation failure, until a creation succeeds: the cause of borrowers' timeouts. */
    private volatile Throwable lastFailure;

    Creators(Pool<T> pool, PoolConfig<T> config, HandOff<T> kernel, PoolCounters counters) {
        this.pool = pool;
        this.config = config;
        this.kernel = kernel;
        this.counters = counters;
    }

    /** Starts creators while there is demand, room and a free creation slot. */
    void fill() {
        if (total >= config.maxSize()) {
            // Full, the common case under contention: no lock. A place freed later is filled by
            // destroyed(), which lowers total before it calls fill().
            return;
        }
        lock.lock();
        try {
            while (!stopped && total < config.maxSize() && creating < config.maxCreating() && creating < demand()) {
                creating++;
                total++;
                Thread t = Thread.ofVirtual()
                        .name("weft-pool-" + config.name() + "-create")
                        .unstarted(this::create);
                workers.add(t);
                t.start();
            }
        } finally {
            lock.unlock();
        }
    }

    private int demand() {
        return kernel.waiting() + Math.max(0, config.minIdle() - kernel.count(Slot.IDLE));
    }

    /** {@code n} resources were destroyed: their places in maxSize are free again. */
    void destroyed(int n) {
        lock.lock();
        try {
            total -= n;
        } finally {
            lock.unlock();
        }
        fill();
    }

    int creating() {
        return creating;
    }

    /** {in use, idle, waiting, creating}, read together (a resource being delivered counts once). */
    int[] counts() {
        lock.lock();
        try {
            int[] c = kernel.counts();
            return new int[] {c[0], c[1], c[2], creating};
        } finally {
            lock.unlock();
        }
    }

    Throwable lastFailure() {
        return lastFailure;
    }

    /** Stops creating: no new creator starts, running ones are interrupted. Returns them, to join. */
    List<Thread> stop() {
        List<Thread> running;
        lock.lock();
        try {
            stopped = true;
            running = new ArrayList<>(workers);
        } finally {
            lock.unlock();
        }
        running.forEach(Thread::interrupt);
        return running;
    }

    private void create() {
        long backoff = TimeUnit.MILLISECONDS.toNanos(10);
        try {
            while (true) {
                T resource = null;
                Throwable failure = null;
                try {
                    resource = config.factory().create();
                    if (resource == null) {
                        failure = new NullPointerException(
                                "the ResourceFactory of pool \"" + config.name() + "\" created null");
                    }
                } catch (Exception | LinkageError e) {
                    failure = e;
                }
                if (failure == null) {
                    deliver(resource);
                    return;
                }
                counters.createFailures.increment();
                lastFailure = failure;
                if (giveUp(false)) {
                    return;
                }
                LOG.log(
                        System.Logger.Level.DEBUG,
                        "pool \"" + config.name() + "\": creating a resource failed; retrying",
                        failure);
                LockSupport.parkNanos(this, backoff); // interruptible by stop()
                backoff = Math.min(MAX_BACKOFF_NANOS, backoff * 2);
                if (giveUp(Thread.currentThread().isInterrupted())) {
                    return;
                }
            }
        } finally {
            lock.lock();
            try {
                workers.remove(Thread.currentThread());
            } finally {
                lock.unlock();
            }
            fill();
        }
    }

    /** After a failure: ends this creation (freeing its place) when stopped or nobody needs it. */
    private boolean giveUp(boolean interrupted) {
        lock.lock();
        try {
            if (interrupted || stopped || demand() <= creating - 1) {
                creating--;
                total--;
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    private void deliver(T resource) {
        Slot<T> s = new Slot<>(pool, resource, System.nanoTime(), Slot.BORROWED);
        // Counted before the hand-off: the borrower it wakes may read stats() before this thread runs again.
        counters.created.increment();
        boolean added;
        lock.lock(); // lock order: this, then the hand-off's (never the reverse)
        try {
            added = kernel.add(s); // with creating--, so that no count sees it twice or not at all
            creating--;
        } finally {
            lock.unlock();
        }
        lastFailure = null;
        if (!added) {
            pool.destroy(List.of(s), "created after close");
        }
    }
}
