package dev.weft.pool;

import dev.weft.thread.Durations;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jetbrains.annotations.Blocking;

/**
 * A pool of reusable resources (database connections, sockets, clients) for virtual threads:
 * borrowers that find none free park in first-come, first-served order and never spin, pin or
 * yield.
 *
 * <p>The model: the pool keeps at most {@code maxSize} resources open. A borrow takes an idle
 * resource, or parks until one is returned or created, at most {@code maxWait}; a resource
 * returned while borrowers wait goes straight to the longest-waiting one. Resources are created by
 * the pool's own virtual threads, at most {@code maxCreating} at a time, only while borrowers wait
 * or fewer than {@code minIdle} are idle; a failed creation is retried with a back-off while there
 * is still demand. A resource idle longer than {@code validateAfter} is validated before it is
 * handed out; a resource older than {@code maxLifetime} or idle longer than {@code idleTimeout}
 * (beyond {@code minIdle}) is destroyed by a housekeeping virtual thread; a resource held longer
 * than {@code leakThreshold} is reported with the stack of the borrow.
 *
 * <pre>{@code
 * try (Pool<StringBuilder> pool = Pool.builder("buffers",
 *                 ResourceFactory.of(StringBuilder::new, sb -> sb.setLength(0)))
 *             .maxSize(20).maxWait(Duration.ofSeconds(2)).build();
 *      Lease<StringBuilder> lease = pool.borrow()) {
 *     lease.get().append("hello");
 * }
 * }</pre>
 *
 * <p>{@link #close()} stops new borrows, fails every waiting borrower at once with a
 * {@link PoolClosedException}, destroys idle resources, waits up to {@code closeTimeout} for the
 * borrowed ones to come back, then destroys those too.
 *
 * <p>Memory consistency effects: actions in a thread before it returns a resource happen-before
 * actions of the thread that borrows that resource next.
 *
 * @param <T> the resource type
 */
public final class Pool<T> implements AutoCloseable {

    /*
     * Implementation overview. One ReentrantLock guards the counts, the idle deque (most recently
     * returned first, so the least used ones age out at the tail) and the FIFO queue of waiters.
     * Nothing slow runs under the lock: creation, validation, reset and destruction happen after
     * it is released. A waiter parks with LockSupport.parkNanos on its own Waiter record; a returning
     * or creating thread hands a resource to the first live waiter under the lock and unparks it,
     * so a resource never sits idle while someone waits, and a newcomer never overtakes a waiter
     * (the fast path is taken only when nobody waits). A waiter that times out or is interrupted
     * cancels itself under the lock; if a resource reached it first, it takes it (timeout) or gives
     * it back (interrupt), so no resource is lost. 'total' counts open resources (until destroyed) plus creations in
     * flight and never exceeds maxSize.
     */

    private static final System.Logger LOG = System.getLogger(Pool.class.getName());
    /** The outcome close() gives every waiter; each throws its own PoolClosedException. */
    private static final Object CLOSED = new Object();
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String name;
    private final ResourceFactory<T> factory;
    private final int maxSize;
    private final int minIdle;
    private final int maxCreating;
    private final Duration maxWait;
    private final long maxLifetime;
    private final long idleTimeout;
    private final long validateAfter;
    private final long leakThreshold;
    private final Duration closeTimeout;
    private final Consumer<? super LeakReport> onLeak;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition returned = lock.newCondition();
    private final ArrayDeque<Entry<T>> idle = new ArrayDeque<>();
    private final ArrayDeque<Waiter<T>> waiters = new ArrayDeque<>();
    private final Set<Entry<T>> borrowed = new LinkedHashSet<>();
    private final Set<Thread> workers = new LinkedHashSet<>();
    private final WaitHistogram waits = new WaitHistogram();
    private final Thread housekeeper;
    private int total;
    private int creating;
    private int waiting;
    private boolean closed;
    private long created;
    private long destroyed;
    private long borrows;
    private long timeouts;
    private long createFailures;
    private long leaks;
    private Throwable lastCreateFailure;

    private Pool(Builder<T> b) {
        this.name = b.name;
        this.factory = b.factory;
        this.maxSize = b.maxSize;
        this.minIdle = b.minIdle;
        this.maxCreating = b.maxCreating;
        this.maxWait = b.maxWait;
        this.maxLifetime = b.maxLifetime.toNanos();
        this.idleTimeout = b.idleTimeout.toNanos();
        this.validateAfter = b.validateAfter.toNanos();
        this.leakThreshold = b.leakThreshold.toNanos();
        this.closeTimeout = b.closeTimeout;
        this.onLeak = b.onLeak;
        long period = housekeepingPeriod();
        this.housekeeper = period == 0 ? null
                : Thread.ofVirtual().name("weft-pool-" + name + "-housekeeper").unstarted(() -> housekeep(period));
        lock.lock();
        try {
            fillLocked();
        } finally {
            lock.unlock();
        }
        if (housekeeper != null) {
            housekeeper.start();
        }
    }

    /**
     * Starts building a pool named {@code name} (for messages and statistics) over
     * {@code factory}.
     *
     * @throws IllegalArgumentException if the name is blank
     * @throws NullPointerException     if an argument is null
     */
    public static <T> Builder<T> builder(String name, ResourceFactory<T> factory) {
        return new Builder<>(name, factory);
    }

    /** The pool's name. */
    public String name() {
        return name;
    }

    /** The most resources the pool keeps open at once. */
    public int maxSize() {
        return maxSize;
    }

    /**
     * Borrows a resource, waiting at most the pool's {@code maxWait}.
     *
     * @return the lease; close it to return the resource
     * @throws PoolTimeoutException if no resource became free within {@code maxWait}
     * @throws PoolClosedException  if the pool is closed, or closes while the caller waits
     * @throws InterruptedException if the caller is interrupted before or while it waits (it then
     *                              holds nothing, and a resource meant for it goes to the next waiter)
     */
    @Blocking
    public Lease<T> borrow() throws InterruptedException {
        return borrow(maxWait);
    }

    /**
     * Borrows a resource, waiting at most {@code maxWait} (zero: only an idle one, at once).
     *
     * @throws PoolTimeoutException if no resource became free in time
     * @throws PoolClosedException  if the pool is closed, or closes while the caller waits
     * @throws InterruptedException if the caller is interrupted before or while it waits
     */
    @Blocking
    public Lease<T> borrow(Duration maxWait) throws InterruptedException {
        Objects.requireNonNull(maxWait, "maxWait");
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before borrowing from pool \"" + name + "\"");
        }
        long start = System.nanoTime();
        long deadline = start + Math.max(0, saturatedNanos(maxWait));
        while (true) {
            Entry<T> e = acquire(start, deadline, maxWait);
            if (usable(e)) {
                long now = System.nanoTime();
                waits.record(now - start);
                if (leakThreshold > 0) {
                    e.borrower = Thread.currentThread().getName();
                    e.borrowStack = new Throwable().getStackTrace();
                }
                return new Lease<>(this, e);
            }
            discard(e);
        }
    }

    /** The pool's state and history now, as data. */
    public PoolStats stats() {
        Duration[] p = waits.percentiles(0.50, 0.99, 1.0);
        lock.lock();
        try {
            return new PoolStats(name, maxSize, borrowed.size(), idle.size(), creating, waiting, created,
                    destroyed, borrows, timeouts, createFailures, leaks, p[0], p[1], p[2]);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Destroys every idle resource now, for example after the server behind them restarted; the
     * pool creates fresh ones as borrowers need them. Borrowed resources are untouched.
     *
     * @return how many idle resources were destroyed
     */
    public int evictIdle() {
        List<Entry<T>> evicted;
        lock.lock();
        try {
            evicted = new ArrayList<>(idle);
            idle.clear();
        } finally {
            lock.unlock();
        }
        destroyAll(evicted, "evictIdle");
        return evicted.size();
    }

    /** Whether {@link #close()} has started. */
    public boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the pool, waiting up to the pool's {@code closeTimeout} for borrowed resources. See
     * {@link #close(Duration)}.
     */
    @Blocking
    @Override
    public void close() {
        try {
            close(closeTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Closes the pool: new borrows fail with {@link PoolClosedException}, every waiting borrower
     * gets one at once, idle resources are destroyed, borrowed ones are destroyed as they come
     * back; after {@code timeout} the ones still out are destroyed anyway (their leases then do
     * nothing on close). Creations in flight end and their resources are destroyed. Calling it
     * again waits again.
     *
     * @return true if every borrowed resource came back in time
     * @throws InterruptedException if interrupted while waiting (the pool stays closed)
     */
    @Blocking
    public boolean close(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, saturatedNanos(timeout));
        List<Entry<T>> toDestroy = new ArrayList<>();
        List<Thread> toStop;
        boolean allBack;
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                for (Waiter<T> w; (w = waiters.pollFirst()) != null; ) {
                    if (!w.cancelled) {
                        w.outcome = CLOSED;
                        LockSupport.unpark(w.thread);
                    }
                }
                waiting = 0;
                toDestroy.addAll(idle);
                idle.clear();
            }
            toStop = new ArrayList<>(workers);
        } finally {
            lock.unlock();
        }
        destroyAll(toDestroy, "idle at close");
        if (housekeeper != null) {
            housekeeper.interrupt();
        }
        toStop.forEach(Thread::interrupt);
        lock.lockInterruptibly();
        try {
            long left;
            while (!borrowed.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
                returned.awaitNanos(left);
            }
            allBack = borrowed.isEmpty();
            toDestroy = new ArrayList<>(borrowed);
            for (Entry<T> e : toDestroy) {
                e.forced = true;
            }
            borrowed.clear();
            toStop = new ArrayList<>(workers);
        } finally {
            lock.unlock();
        }
        if (!toDestroy.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "pool \"" + name + "\": " + toDestroy.size()
                    + " resource(s) still borrowed after closeTimeout " + Durations.human(timeout) + "; destroying them");
        }
        destroyAll(toDestroy, "still borrowed at close");
        for (Thread t : toStop) {
            t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
        if (housekeeper != null) {
            housekeeper.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
        return allBack;
    }

    @Override
    public String toString() {
        PoolStats s = stats();
        return "Pool[" + name + ": maxSize " + maxSize + ", " + s.inUse() + " in use, " + s.idle() + " idle, "
                + s.creating() + " being created, " + s.waiting() + " waiting" + (isClosed() ? ", closed]" : "]");
    }

    // ---------------------------------------------------------------- borrowing

    private Entry<T> acquire(long start, long deadline, Duration maxWait) throws InterruptedException {
        Waiter<T> w;
        List<Entry<T>> expired = null;
        lock.lock();
        try {
            if (closed) {
                throw new PoolClosedException(name, "pool \"" + name + "\" is closed; borrow from an open pool");
            }
            if (waiting == 0) {
                long now = System.nanoTime();
                Entry<T> e;
                while ((e = idle.pollFirst()) != null) {
                    if (maxLifetime > 0 && now - e.createdAt >= maxLifetime) {
                        (expired == null ? expired = new ArrayList<>() : expired).add(e);
                        continue;
                    }
                    checkoutLocked(e);
                    return e;
                }
            }
            w = new Waiter<>(Thread.currentThread());
            waiters.addLast(w);
            waiting++;
            fillLocked();
        } finally {
            lock.unlock();
            if (expired != null) {
                destroyAll(expired, "past maxLifetime");
            }
        }
        while (true) {
            Object outcome = w.outcome;
            if (outcome != null) {
                return taken(outcome);
            }
            if (Thread.interrupted()) {
                Entry<T> e = cancel(w);
                if (e != null) {
                    release(e, false);
                }
                throw new InterruptedException("interrupted while waiting for a resource of pool \"" + name + "\"");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                Entry<T> e = cancel(w);
                if (e != null) {
                    return e;
                }
                throw timeout(Duration.ofNanos(System.nanoTime() - start), maxWait);
            }
            LockSupport.parkNanos(this, left);
        }
    }

    @SuppressWarnings("unchecked")
    private Entry<T> taken(Object outcome) {
        if (outcome == CLOSED) {
            throw new PoolClosedException(name, "pool \"" + name
                    + "\" was closed while this borrower waited for a resource; borrow from an open pool");
        }
        return (Entry<T>) outcome;
    }

    /** Withdraws a waiter; returns the resource handed to it meanwhile, if any. */
    private Entry<T> cancel(Waiter<T> w) {
        lock.lock();
        try {
            Object outcome = w.outcome;
            if (outcome != null) {
                return taken(outcome);
            }
            w.cancelled = true;
            waiting--;
            if (waiting == 0) {
                waiters.clear();
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    private PoolTimeoutException timeout(Duration waited, Duration maxWait) {
        lock.lock();
        try {
            timeouts++;
            Throwable cause = lastCreateFailure;
            String msg = "pool \"" + name + "\" had no resource for the " + Durations.human(waited)
                    + " this borrower waited (maxWait " + Durations.human(maxWait) + "; maxSize " + maxSize + ": "
                    + borrowed.size() + " in use, " + idle.size() + " idle, " + creating + " being created; "
                    + waiting + " other borrowers waiting)"
                    + (cause == null ? "; raise maxSize or maxWait, or hold resources for less time"
                    : "; the last attempt to create a resource failed: " + cause);
            return new PoolTimeoutException(name, msg, waited, cause);
        } finally {
            lock.unlock();
        }
    }

    private boolean usable(Entry<T> e) {
        if (validateAfter < 0 || System.nanoTime() - e.lastUsed < validateAfter) {
            return true;
        }
        try {
            return factory.validate(e.resource);
        } catch (Exception | LinkageError failure) {
            LOG.log(System.Logger.Level.DEBUG, "pool \"" + name + "\": validation threw; destroying the resource", failure);
            return false;
        }
    }

    private void checkoutLocked(Entry<T> e) {
        if (!borrowed.add(e)) {
            throw new IllegalStateException("pool \"" + name + "\" handed out a resource that is already borrowed");
        }
        borrows++;
        e.borrowedAt = System.nanoTime();
        e.leakReported = false;
    }

    // ---------------------------------------------------------------- returning

    /** Returns (or, when {@code broken}, destroys) a borrowed resource; called once per lease. */
    void release(Entry<T> e, boolean broken) {
        boolean destroy = broken;
        if (!destroy) {
            try {
                factory.reset(e.resource);
            } catch (Exception | LinkageError failure) {
                LOG.log(System.Logger.Level.DEBUG, "pool \"" + name + "\": reset threw; destroying the resource", failure);
                destroy = true;
            }
        }
        lock.lock();
        try {
            if (e.forced) {
                return;             // close() already destroyed it
            }
            borrowed.remove(e);
            e.borrowStack = null;
            long now = System.nanoTime();
            if (destroy || closed || (maxLifetime > 0 && now - e.createdAt >= maxLifetime)) {
                destroy = true;
            } else {
                e.lastUsed = now;
                if (!handOffLocked(e)) {
                    idle.addFirst(e);
                }
            }
            if (borrowed.isEmpty()) {
                returned.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (destroy) {
            destroyAll(List.of(e), broken ? "invalidated" : "closed pool or past maxLifetime");
        }
    }

    /** Destroys a resource that failed validation on borrow, then lets the pool refill. */
    private void discard(Entry<T> e) {
        lock.lock();
        try {
            borrowed.remove(e);
            borrows--;
        } finally {
            lock.unlock();
        }
        destroyAll(List.of(e), "failed validation");
    }

    /** Gives {@code e} to the longest-waiting borrower, if there is one. */
    private boolean handOffLocked(Entry<T> e) {
        for (Waiter<T> w; (w = waiters.pollFirst()) != null; ) {
            if (w.cancelled) {
                continue;
            }
            waiting--;
            checkoutLocked(e);
            w.outcome = e;
            LockSupport.unpark(w.thread);
            return true;
        }
        return false;
    }

    /** Destroys resources already taken out of idle/borrowed, then frees their places in maxSize. */
    private void destroyAll(List<Entry<T>> entries, String why) {
        for (Entry<T> e : entries) {
            try {
                factory.destroy(e.resource);
            } catch (Exception | LinkageError failure) {
                LOG.log(System.Logger.Level.DEBUG, "pool \"" + name + "\": destroying a resource (" + why + ") threw", failure);
            }
        }
        if (!entries.isEmpty()) {
            lock.lock();
            try {
                destroyed += entries.size();
                total -= entries.size();       // only now: a resource counts as open until destroyed
                fillLocked();
            } finally {
                lock.unlock();
            }
        }
    }

    // ---------------------------------------------------------------- creating

    /** Starts creator threads while there is demand, room and a free creation slot. */
    private void fillLocked() {
        while (!closed && total < maxSize && creating < maxCreating && creating < demandLocked()) {
            creating++;
            total++;
            Thread t = Thread.ofVirtual().name("weft-pool-" + name + "-create").unstarted(this::create);
            workers.add(t);
            t.start();
        }
    }

    private int demandLocked() {
        return waiting + Math.max(0, minIdle - idle.size());
    }

    private void create() {
        long backoff = TimeUnit.MILLISECONDS.toNanos(10);
        try {
            while (true) {
                T resource = null;
                Throwable failure = null;
                try {
                    resource = factory.create();
                    if (resource == null) {
                        failure = new NullPointerException("the ResourceFactory of pool \"" + name + "\" created null");
                    }
                } catch (Exception | LinkageError e) {
                    failure = e;
                }
                if (failure == null) {
                    deliver(resource);
                    return;
                }
                lock.lock();
                try {
                    createFailures++;
                    lastCreateFailure = failure;
                    if (closed || demandLocked() <= creating - 1) {
                        creating--;
                        total--;
                        return;
                    }
                } finally {
                    lock.unlock();
                }
                LOG.log(System.Logger.Level.DEBUG, "pool \"" + name + "\": creating a resource failed; retrying", failure);
                LockSupport.parkNanos(this, backoff);   // interruptible by close()
                backoff = Math.min(MAX_BACKOFF_NANOS, backoff * 2);
                if (Thread.currentThread().isInterrupted()) {
                    lock.lock();
                    try {
                        creating--;
                        total--;
                    } finally {
                        lock.unlock();
                    }
                    return;
                }
            }
        } finally {
            lock.lock();
            try {
                workers.remove(Thread.currentThread());
                fillLocked();
            } finally {
                lock.unlock();
            }
        }
    }

    private void deliver(T resource) {
        Entry<T> e = new Entry<>(resource, System.nanoTime());
        boolean destroy = false;
        lock.lock();
        try {
            creating--;
            created++;
            lastCreateFailure = null;
            if (closed) {
                destroy = true;
            } else if (!handOffLocked(e)) {
                idle.addFirst(e);
            }
        } finally {
            lock.unlock();
        }
        if (destroy) {
            destroyAll(List.of(e), "created after close");
        }
    }

    // ---------------------------------------------------------------- housekeeping

    private long housekeepingPeriod() {
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

    private void housekeep(long period) {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(Duration.ofNanos(period));
            } catch (InterruptedException e) {
                return;
            }
            List<Entry<T>> evicted = new ArrayList<>();
            List<LeakReport> leaked = new ArrayList<>();
            long now = System.nanoTime();
            lock.lock();
            try {
                if (closed) {
                    return;
                }
                Iterator<Entry<T>> it = idle.descendingIterator();    // least recently used first
                while (it.hasNext()) {
                    Entry<T> e = it.next();
                    boolean old = maxLifetime > 0 && now - e.createdAt >= maxLifetime;
                    boolean stale = idleTimeout > 0 && now - e.lastUsed >= idleTimeout && idle.size() > minIdle;
                    if (old || stale) {
                        it.remove();
                        evicted.add(e);
                    }
                }
                if (leakThreshold > 0) {
                    for (Entry<T> e : borrowed) {
                        if (!e.leakReported && e.borrowStack != null && now - e.borrowedAt >= leakThreshold) {
                            e.leakReported = true;
                            leaks++;
                            leaked.add(new LeakReport(name, Duration.ofNanos(now - e.borrowedAt), e.borrower,
                                    Arrays.asList(e.borrowStack)));
                        }
                    }
                }
                fillLocked();
            } finally {
                lock.unlock();
            }
            destroyAll(evicted, "evicted");
            for (LeakReport r : leaked) {
                try {
                    onLeak.accept(r);
                } catch (RuntimeException failure) {
                    LOG.log(System.Logger.Level.WARNING, "pool \"" + name + "\": the onLeak callback threw", failure);
                }
            }
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE / 2;
        }
    }

    /** One pooled resource and its bookkeeping (guarded by the pool's lock). */
    static final class Entry<T> {
        final T resource;
        final long createdAt;
        long lastUsed;
        long borrowedAt;
        boolean leakReported;
        boolean forced;
        String borrower = "";
        StackTraceElement[] borrowStack;

        Entry(T resource, long createdAt) {
            this.resource = resource;
            this.createdAt = createdAt;
            this.lastUsed = createdAt;
        }
    }

    /** A parked borrower; {@code outcome} is the Entry handed to it or the exception to throw. */
    private static final class Waiter<T> {
        final Thread thread;
        volatile Object outcome;
        boolean cancelled;

        Waiter(Thread thread) {
            this.thread = thread;
        }
    }

    /**
     * Options of a {@link Pool}; every one has a default, listed with it. Durations of zero turn
     * the feature off where that is said.
     *
     * @param <T> the resource type
     */
    public static final class Builder<T> {
        private final String name;
        private final ResourceFactory<T> factory;
        private int maxSize = 10;
        private int minIdle = 0;
        private int maxCreating = 4;
        private Duration maxWait = Duration.ofSeconds(30);
        private Duration maxLifetime = Duration.ofMinutes(30);
        private Duration idleTimeout = Duration.ofMinutes(10);
        private Duration validateAfter = Duration.ofMillis(500);
        private Duration leakThreshold = Duration.ZERO;
        private Duration closeTimeout = Duration.ofSeconds(30);
        private Consumer<? super LeakReport> onLeak =
                r -> LOG.log(System.Logger.Level.WARNING, r.toText());

        private Builder(String name, ResourceFactory<T> factory) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("a pool needs a name for its messages and statistics, e.g. \"db\"");
            }
            this.name = name;
            this.factory = Objects.requireNonNull(factory, "factory");
        }

        /** The most resources open at once, borrowed, idle or being created (default 10; at least 1). */
        public Builder<T> maxSize(int maxSize) {
            if (maxSize < 1) {
                throw new IllegalArgumentException("maxSize must be at least 1; got " + maxSize);
            }
            this.maxSize = maxSize;
            return this;
        }

        /**
         * How many idle resources the pool keeps ready, creating them in the background (default 0:
         * create on demand; at most maxSize).
         */
        public Builder<T> minIdle(int minIdle) {
            if (minIdle < 0) {
                throw new IllegalArgumentException("minIdle must be 0 or more; got " + minIdle);
            }
            this.minIdle = minIdle;
            return this;
        }

        /** The most resources being created at once (default 4; at least 1). */
        public Builder<T> maxCreating(int maxCreating) {
            if (maxCreating < 1) {
                throw new IllegalArgumentException("maxCreating must be at least 1; got " + maxCreating);
            }
            this.maxCreating = maxCreating;
            return this;
        }

        /** The longest a borrow waits before a {@link PoolTimeoutException} (default 30 s; zero: no wait). */
        public Builder<T> maxWait(Duration maxWait) {
            this.maxWait = nonNegative("maxWait", maxWait);
            return this;
        }

        /** A resource older than this is destroyed, never while borrowed (default 30 min; zero: no limit). */
        public Builder<T> maxLifetime(Duration maxLifetime) {
            this.maxLifetime = nonNegative("maxLifetime", maxLifetime);
            return this;
        }

        /** A resource idle longer than this is destroyed while more than minIdle are idle (default 10 min; zero: never). */
        public Builder<T> idleTimeout(Duration idleTimeout) {
            this.idleTimeout = nonNegative("idleTimeout", idleTimeout);
            return this;
        }

        /**
         * A resource idle longer than this is validated ({@link ResourceFactory#validate}) before it
         * is handed out (default 500 ms; zero: at every borrow).
         */
        public Builder<T> validateAfter(Duration validateAfter) {
            this.validateAfter = nonNegative("validateAfter", validateAfter);
            return this;
        }

        /**
         * A resource held longer than this is reported, with the stack of its borrow, to
         * {@link #onLeak} (default zero: off; on, every borrow records its stack).
         */
        public Builder<T> leakThreshold(Duration leakThreshold) {
            this.leakThreshold = nonNegative("leakThreshold", leakThreshold);
            return this;
        }

        /** Where leak reports go (default: a WARNING on the System.Logger {@code dev.weft.pool.Pool}). */
        public Builder<T> onLeak(Consumer<? super LeakReport> onLeak) {
            this.onLeak = Objects.requireNonNull(onLeak, "onLeak");
            return this;
        }

        /** How long {@link Pool#close()} waits for borrowed resources (default 30 s). */
        public Builder<T> closeTimeout(Duration closeTimeout) {
            this.closeTimeout = nonNegative("closeTimeout", closeTimeout);
            return this;
        }

        /**
         * Builds the pool and starts creating its {@code minIdle} resources in the background.
         *
         * @throws IllegalArgumentException if minIdle exceeds maxSize
         */
        public Pool<T> build() {
            if (minIdle > maxSize) {
                throw new IllegalArgumentException("minIdle (" + minIdle + ") must not exceed maxSize (" + maxSize + ")");
            }
            return new Pool<>(this);
        }

        private static Duration nonNegative(String option, Duration d) {
            Objects.requireNonNull(d, option);
            if (d.isNegative()) {
                throw new IllegalArgumentException(option + " must be zero or positive; got " + d);
            }
            return d;
        }
    }
}
