package dev.weft.pool;

import dev.weft.thread.internal.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jetbrains.annotations.Blocking;

/**
 * A pool of reusable resources (database connections, sockets, clients) for virtual threads:
 * borrowers that find none free park, served in arrival order among themselves, and never spin,
 * pin or yield.
 *
 * <p>The model: the pool keeps at most {@code maxSize} resources open. A borrow takes a free
 * resource, or parks until one is returned or created, at most {@code maxWait}. A borrower that
 * arrives while others wait may still take a resource that is free at that moment, but the
 * longest-waiting borrower is overtaken at most {@code maxSize} times before a returned resource
 * goes straight to it (bounded barging, decision 0603): the pool stays fast under contention and
 * no wait grows without bound. Resources are created by the pool's own virtual threads, at most
 * {@code maxCreating} at a time, only while borrowers wait or fewer than {@code minIdle} are idle;
 * a failed creation is retried with a back-off while there is still demand. A resource idle
 * longer than {@code validateAfter} is validated before it is handed out; a resource older than
 * {@code maxLifetime} is destroyed when it is next idle, and one idle longer than
 * {@code idleTimeout} (beyond {@code minIdle}) is destroyed, by a housekeeping virtual thread
 * (within one of its periods of the time); a resource held longer than {@code leakThreshold} is
 * reported with the stack of the borrow. A borrow reads the clock once; a return never does.
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
     * The mechanisms, one per file: HandOff (the kernel: slots, waiters, the one lock, the
     * barging rule; its protocol is at its top), Creators (opening resources on demand), Housekeeper
     * (eviction, lifetime, leaks), PoolConfig (the options). This class is the facade: the borrow
     * and return paths that call the factory (validate, reset, destroy) outside any lock, close,
     * and statistics.
     */

    private static final System.Logger LOG = System.getLogger(Pool.class.getName());

    private final PoolConfig<T> config;
    private final HandOff<T> kernel;
    private final Creators<T> creators;
    final Housekeeper<T> housekeeper; // package-private: tests run its passes at chosen times
    private final PoolCounters counters = new PoolCounters();
    private final Function<Slot<T>, Lease<T>> plainLeases = Lease::new;

    private Pool(PoolConfig<T> config) {
        this.config = config;
        this.kernel = new HandOff<>(config.name(), config.bargeBound(), this::borrowersWait);
        this.creators = new Creators<>(this, config, kernel, counters);
        this.housekeeper = new Housekeeper<>(this, config, kernel, creators, counters);
        creators.fill();
        housekeeper.start();
    }

    /** The hand-off's one callback: borrowers started waiting, so there may be something to create. */
    private void borrowersWait() {
        creators.fill();
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
        return config.name();
    }

    /** The most resources the pool keeps open at once. */
    public int maxSize() {
        return config.maxSize();
    }

    /** How long {@link #borrow()} waits at most. */
    public Duration maxWait() {
        return config.maxWait();
    }

    /**
     * How many borrowers are parked waiting for a resource now: one volatile read, no lock, cheap
     * enough for a per-request admission check. {@link #stats()} has the rest.
     */
    public int waiting() {
        return kernel.waiting();
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
        return borrow(config.maxWait(), plainLeases);
    }

    /**
     * Borrows a resource, waiting at most {@code maxWait} (zero: only a free one, at once).
     *
     * @throws PoolTimeoutException if no resource became free in time
     * @throws PoolClosedException  if the pool is closed, or closes while the caller waits
     * @throws InterruptedException if the caller is interrupted before or while it waits
     */
    @Blocking
    public Lease<T> borrow(Duration maxWait) throws InterruptedException {
        return borrow(maxWait, plainLeases);
    }

    /**
     * Borrows a resource as a lease of the caller's own type: {@code leases} makes it from the
     * slot the pool claimed (with {@code new MyLease(slot)}, a subclass of {@link Lease}), so a
     * library whose handle is the lease allocates one object per borrow. Same waits and errors as
     * {@link #borrow(Duration)}; {@code leases} must not throw.
     */
    @Blocking
    public <L extends Lease<T>> L borrow(Duration maxWait, Function<Slot<T>, L> leases) throws InterruptedException {
        Objects.requireNonNull(maxWait, "maxWait");
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before borrowing from pool \"" + config.name() + "\"");
        }
        if (kernel.isClosed()) {
            throw new PoolClosedException(
                    config.name(), "pool \"" + config.name() + "\" is closed; borrow from an open pool");
        }
        Slot<T> s = kernel.poll();
        if (s != null && ready(s)) {
            s.immediateBorrows++; // by its holder; summed by stats()
            return leases.apply(s);
        }
        long start = System.nanoTime();
        long deadline = start + Math.max(0, PoolConfig.saturatedNanos(maxWait));
        while (true) {
            s = kernel.poll();
            if (s == null && (s = kernel.take(deadline)) == null) {
                throw timeout(Duration.ofNanos(System.nanoTime() - start), maxWait);
            }
            if (ready(s)) {
                counters.waits.record(System.nanoTime() - start);
                return leases.apply(s);
            }
        }
    }

    /** Checks a claimed slot before it is handed out; destroys it and answers false if unusable. */
    private boolean ready(Slot<T> s) {
        long now = System.nanoTime();
        if (config.expired(s, now)) {
            discard(s, "past maxLifetime");
            return false;
        }
        if (now - s.lastBorrowed >= config.validateAfter() && !valid(s)) {
            discard(s, "failed validation");
            return false;
        }
        s.lastBorrowed = now;
        if (config.leakThreshold() > 0) {
            s.borrowedAt = now;
            s.leakReported = false;
            s.borrower = Thread.currentThread().getName();
            s.borrowStack = new Throwable().getStackTrace(); // volatile: publishes the two above
        }
        return true;
    }

    private boolean valid(Slot<T> s) {
        try {
            return config.factory().validate(s.resource);
        } catch (Exception | LinkageError failure) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "pool \"" + config.name() + "\": validation threw; destroying the resource",
                    failure);
            return false;
        }
    }

    private void discard(Slot<T> s, String why) {
        if (kernel.remove(s, Slot.BORROWED)) {
            destroy(List.of(s), why);
        }
    }

    private PoolTimeoutException timeout(Duration waited, Duration maxWait) {
        counters.timeouts.increment();
        int[] c = kernel.counts();
        Throwable cause = creators.lastFailure();
        String msg = "pool \"" + config.name() + "\" had no resource for the " + Durations.human(waited)
                + " this borrower waited (maxWait " + Durations.human(maxWait) + "; maxSize " + config.maxSize() + ": "
                + c[0] + " in use, " + c[1] + " idle, " + creators.creating() + " being created; "
                + c[2] + " other borrowers waiting)"
                + (cause == null
                        ? "; raise maxSize or maxWait, or hold resources for less time"
                        : "; the last attempt to create a resource failed: " + cause);
        return new PoolTimeoutException(config.name(), msg, waited, cause);
    }

    /** Returns (or, when {@code broken}, destroys) a borrowed resource; called once per lease. */
    void release(Slot<T> s, boolean broken) {
        if (s.state() == Slot.REMOVED) {
            return; // close() destroyed it already
        }
        boolean destroy = broken;
        if (!destroy) {
            try {
                config.factory().reset(s.resource);
            } catch (Exception | LinkageError failure) {
                LOG.log(
                        System.Logger.Level.DEBUG,
                        "pool \"" + config.name() + "\": reset threw; destroying the resource",
                        failure);
                destroy = true;
            }
        }
        if (config.leakThreshold() > 0) {
            s.borrowStack = null;
        }
        // No clock here: the housekeeper retires a resource that passed maxLifetime while borrowed.
        if (destroy || s.retired || kernel.isClosed()) {
            discard(s, broken ? "invalidated" : "closed pool or past maxLifetime");
            return;
        }
        if (kernel.release(s)) {
            destroy(List.of(s), "returned after close");
        }
    }

    /** Destroys resources already removed from the hand-off, then frees their places in maxSize. */
    void destroy(List<Slot<T>> slots, String why) {
        for (Slot<T> s : slots) {
            try {
                config.factory().destroy(s.resource);
            } catch (Exception | LinkageError failure) {
                LOG.log(
                        System.Logger.Level.DEBUG,
                        "pool \"" + config.name() + "\": destroying a resource (" + why + ") threw",
                        failure);
            }
        }
        for (Slot<T> s : slots) {
            counters.waits.retire(s.immediateBorrows);
        }
        if (!slots.isEmpty()) {
            counters.destroyed.add(slots.size());
            creators.destroyed(slots.size()); // only now: a resource counts as open until destroyed
        }
    }

    /** The pool's state and history now, as data. */
    public PoolStats stats() {
        long live = 0;
        for (Slot<T> s : kernel.slots()) {
            live += s.immediateBorrows; // a racy read: a borrow in flight may be missed
        }
        Duration[] p = counters.waits.percentiles(live, 0.50, 0.99, 1.0);
        int[] c = creators.counts();
        return new PoolStats(
                config.name(),
                config.maxSize(),
                c[0],
                c[1],
                c[3],
                c[2],
                counters.created.sum(),
                counters.destroyed.sum(),
                counters.waits.count(live),
                counters.timeouts.sum(),
                counters.createFailures.sum(),
                counters.leaks.sum(),
                p[0],
                p[1],
                p[2]);
    }

    /**
     * Destroys every idle resource now, for example after the server behind them restarted; the
     * pool creates fresh ones as borrowers need them. Borrowed resources are untouched.
     *
     * @return how many idle resources were destroyed
     */
    public int evictIdle() {
        List<Slot<T>> evicted = kernel.removeAll(Slot.IDLE);
        destroy(evicted, "evictIdle");
        return evicted.size();
    }

    /** Whether {@link #close()} has started. */
    public boolean isClosed() {
        return kernel.isClosed();
    }

    /**
     * Closes the pool, waiting up to the pool's {@code closeTimeout} for borrowed resources. See
     * {@link #close(Duration)}.
     */
    @Blocking
    @Override
    public void close() {
        try {
            close(config.closeTimeout());
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
        long deadline = System.nanoTime() + Math.max(0, PoolConfig.saturatedNanos(timeout));
        destroy(kernel.close(), "idle at close");
        housekeeper.stop();
        List<Thread> workers = creators.stop();
        boolean allBack = kernel.awaitNoneBorrowed(deadline);
        List<Slot<T>> out = kernel.removeAll(Slot.BORROWED);
        if (!out.isEmpty()) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "pool \"" + config.name() + "\": " + out.size() + " resource(s) still borrowed after closeTimeout "
                            + Durations.human(timeout) + "; destroying them");
        }
        destroy(out, "still borrowed at close");
        for (Thread t : workers) {
            t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
        housekeeper.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        return allBack;
    }

    @Override
    public String toString() {
        PoolStats s = stats();
        return "Pool[" + config.name() + ": maxSize " + config.maxSize() + ", " + s.inUse() + " in use, " + s.idle()
                + " idle, " + s.creating() + " being created, " + s.waiting() + " waiting"
                + (isClosed() ? ", closed]" : "]");
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
        private Consumer<? super LeakReport> onLeak = r -> LOG.log(System.Logger.Level.WARNING, r.toText());

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

        /**
         * A resource older than this is destroyed, never while borrowed: at a borrow that finds it
         * old, or by the housekeeper within one of its periods (a quarter of this, at most 30 s),
         * when idle or when it is returned (default 30 min; zero: no limit).
         */
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
         * is handed out (default 500 ms; zero: at every borrow). Measured from the start of its last
         * borrow (a return reads no clock), so a resource held longer than this is validated at its
         * next borrow too.
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
            return new Pool<>(new PoolConfig<>(
                    name,
                    factory,
                    maxSize,
                    minIdle,
                    maxCreating,
                    maxWait,
                    maxLifetime.toNanos(),
                    idleTimeout.toNanos(),
                    validateAfter.toNanos(),
                    leakThreshold.toNanos(),
                    closeTimeout,
                    onLeak,
                    maxSize));
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
