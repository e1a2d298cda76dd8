package dev.weft.limit;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jetbrains.annotations.Blocking;

/**
 * A bulkhead: lets at most {@code permits} callers in at once, lets at most {@code maxWaiting}
 * more wait for a permit (each at most {@code maxWait}), and rejects anyone beyond that at once
 * with a {@link LimitExceededException}.
 *
 * <p>Virtual threads make concurrency cheap, so the resources behind them (a database, a remote
 * service, memory) need an explicit bound. A limiter is that bound, and it is usable on its own:
 *
 * <pre>{@code
 * Limiter db = Limiter.builder("db", 20).maxWaiting(200).maxWait(Duration.ofSeconds(2)).build();
 * Row row = db.call(() -> query(id));          // waits for one of 20 permits, or is rejected
 * try (Limiter.Permit p = db.acquire()) {      // the same, for a block of code
 *     ...
 * }
 * }</pre>
 *
 * <p>Waiting callers are served first come, first served. A waiting virtual thread unmounts, so
 * waiting costs no carrier. Interrupting a waiting caller makes {@link #acquire()} throw
 * {@link InterruptedException} without taking a permit.
 *
 * <p>Memory consistency effects: actions in a thread before releasing a permit happen-before
 * actions after another thread acquires it (as for {@link Semaphore}).
 */
public final class Limiter {

    private final String name;
    private final int permits;
    private final int maxWaiting;
    private final Duration maxWait;
    private final Semaphore semaphore;
    private final AtomicInteger waiting = new AtomicInteger();
    private final LongAdder rejected = new LongAdder();

    private Limiter(Builder b) {
        this.name = b.name;
        this.permits = b.permits;
        this.maxWaiting = b.maxWaiting;
        this.maxWait = b.maxWait;
        this.semaphore = new Semaphore(b.permits, true);
    }

    /**
     * A limiter of {@code permits} with an unbounded wait: callers beyond the permits wait as
     * long as it takes. This is plain bounded concurrency, as a scope's cap uses it.
     */
    public static Limiter of(String name, int permits) {
        return builder(name, permits).build();
    }

    /**
     * Starts building a limiter named {@code name} (for messages and metrics) with {@code permits}
     * callers in at once.
     *
     * @throws IllegalArgumentException if {@code permits} is not positive or the name is blank
     */
    public static Builder builder(String name, int permits) {
        return new Builder(name, permits);
    }

    /**
     * Takes a permit, waiting if the limiter's rules allow it.
     *
     * @return the permit; close it to give it back
     * @throws LimitExceededException if {@code maxWaiting} callers already wait, or the wait took
     *                                longer than {@code maxWait}
     * @throws InterruptedException   if interrupted while waiting (no permit is taken)
     */
    @Blocking
    public Permit acquire() throws InterruptedException {
        take();
        return new Permit(this);
    }

    /** Takes a permit only if one is free now, never waiting and never counting as rejected. */
    public Optional<Permit> tryAcquire() {
        return semaphore.tryAcquire() ? Optional.of(new Permit(this)) : Optional.empty();
    }

    /**
     * Runs {@code task} holding a permit and returns its result; the permit is given back however
     * the task ends.
     *
     * @throws LimitExceededException as {@link #acquire()}, without running the task
     * @throws InterruptedException   if interrupted while waiting, without running the task
     * @throws Exception              whatever the task throws
     */
    @Blocking
    public <T> T call(Callable<T> task) throws Exception {
        Objects.requireNonNull(task, "task");
        take();
        try {
            return task.call();
        } finally {
            semaphore.release();
        }
    }

    private void take() throws InterruptedException {
        // A fair semaphore's timed tryAcquire honours the queue: no barging past waiters.
        if (semaphore.tryAcquire(0, TimeUnit.NANOSECONDS)) {
            return;
        }
        if (waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            rejected.increment();
            throw new LimitExceededException(name, permits, maxWaiting, null);
        }
        try {
            boolean got;
            if (maxWait == null) {
                semaphore.acquire();
                got = true;
            } else {
                got = semaphore.tryAcquire(maxWait.toNanos(), TimeUnit.NANOSECONDS);
            }
            if (!got) {
                rejected.increment();
                throw new LimitExceededException(name, permits, maxWaiting, maxWait);
            }
        } finally {
            waiting.decrementAndGet();
        }
    }

    /** The limiter's name. */
    public String name() {
        return name;
    }

    /** How many callers may be in at once. */
    public int permits() {
        return permits;
    }

    /** How many callers may wait at once ({@link Integer#MAX_VALUE} when unbounded). */
    public int maxWaiting() {
        return maxWaiting;
    }

    /** The longest a caller waits, or empty when it waits as long as it takes. */
    public Optional<Duration> maxWait() {
        return Optional.ofNullable(maxWait);
    }

    /** Callers holding a permit now. */
    public int inUse() {
        return permits - semaphore.availablePermits();
    }

    /** Callers waiting for a permit now. */
    public int waiting() {
        return Math.max(0, waiting.get());
    }

    /** Callers rejected since the limiter was built. */
    public long rejected() {
        return rejected.sum();
    }

    @Override
    public String toString() {
        return "Limiter[" + name + ": " + inUse() + "/" + permits + " in use, " + waiting() + " waiting]";
    }

    /** A held permit. {@link #close()} gives it back; closing again does nothing. */
    public static final class Permit implements AutoCloseable {
        private final Limiter limiter;
        private final AtomicBoolean released = new AtomicBoolean();

        private Permit(Limiter limiter) {
            this.limiter = limiter;
        }

        /** Gives the permit back, once. */
        @Override
        public void close() {
            if (released.compareAndSet(false, true)) {
                limiter.semaphore.release();
            }
        }
    }

    /** Configures a {@link Limiter}. */
    public static final class Builder {
        private final String name;
        private final int permits;
        private int maxWaiting = Integer.MAX_VALUE;
        private Duration maxWait;

        private Builder(String name, int permits) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("a limiter needs a name for its messages, e.g. \"db\"");
            }
            if (permits <= 0) {
                throw new IllegalArgumentException("limiter " + name + ": permits must be positive; got " + permits);
            }
            this.name = name;
            this.permits = permits;
        }

        /**
         * At most this many callers wait for a permit; more are rejected at once. 0 means never
         * wait. Default: unbounded.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder maxWaiting(int maxWaiting) {
            if (maxWaiting < 0) {
                throw new IllegalArgumentException("limiter " + name + ": maxWaiting must be >= 0; got " + maxWaiting);
            }
            this.maxWaiting = maxWaiting;
            return this;
        }

        /**
         * A caller waits at most this long for a permit, then is rejected. Default: as long as
         * it takes.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder maxWait(Duration maxWait) {
            Objects.requireNonNull(maxWait, "maxWait");
            if (maxWait.isNegative()) {
                throw new IllegalArgumentException("limiter " + name + ": maxWait must not be negative; got " + maxWait);
            }
            this.maxWait = maxWait;
            return this;
        }

        /** The limiter. */
        public Limiter build() {
            return new Limiter(this);
        }
    }
}
