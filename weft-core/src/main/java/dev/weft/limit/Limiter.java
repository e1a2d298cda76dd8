package dev.weft.limit;

import java.io.InterruptedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
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
 * <p>The number of permits is fixed, or follows an {@link AdaptiveLimit}: an algorithm that
 * learns from each call's latency how much concurrency the resource bears
 * ({@link #builder(String, AdaptiveLimit)}; the algorithms are in {@code weft-concurrency-limits}).
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
    private final int maxWaiting;
    private final Duration maxWait;
    private final Gate gate;

    private Limiter(Builder b) {
        this.name = b.name;
        this.maxWaiting = b.maxWaiting;
        this.maxWait = b.maxWait;
        this.gate = b.adaptive == null
                ? new FixedGate(b.name, b.permits, b.maxWaiting, b.maxWait)
                : new AdaptiveGate(b.name, b.adaptive, b.maxWaiting, b.maxWait);
        // Take and give back one permit here, on the thread that builds the limiter, so that the
        // JVM resolves the permit paths' references now. Otherwise a fresh JVM's first fan-out
        // resolves them on many virtual threads at once, which meet on the class loader's lock
        // and pin (doc/pinning.md, "A fresh JVM's first fan-out"): seen at Permit.release in a
        // zero-pin check of the clojure-ring example. A permit given back reporting nothing
        // changes no figure the limiter reports.
        Permit first = gate.tryAcquire();
        if (first != null) {
            first.closeIgnored();
        }
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
        return new Builder(name, permits, null);
    }

    /**
     * Starts building a limiter named {@code name} whose permits follow {@code limit}: a caller
     * gets in only while fewer than {@code limit.limit()} callers hold a permit (and nobody waits
     * before it), and every permit given back is reported to {@code limit} as a sample (see
     * {@link Permit}). When the limit goes down, the callers already in keep their permits; new
     * ones wait or are rejected until fewer than the new limit are in. {@link #permits()} reads
     * the limit's current value. The waiting rules ({@code maxWaiting}, {@code maxWait}) are those
     * of any limiter.
     *
     * <pre>{@code
     * Limiter api = Limiter.builder("api", vegas).maxWaiting(0).build(); // shed what is over the limit
     * }</pre>
     *
     * @throws IllegalArgumentException if the name is blank
     * @throws NullPointerException     if {@code limit} is null
     */
    public static Builder builder(String name, AdaptiveLimit limit) {
        return new Builder(name, 0, Objects.requireNonNull(limit, "limit"));
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
        return gate.acquire();
    }

    /**
     * Takes a permit only if one is free now, never waiting and never counting as rejected. A
     * fixed limiter may give it ahead of callers already waiting (as
     * {@link Semaphore#tryAcquire()} does); an adaptive one gives it only when nobody waits.
     */
    public Optional<Permit> tryAcquire() {
        return Optional.ofNullable(gate.tryAcquire());
    }

    /**
     * Runs {@code task} holding a permit and returns its result; the permit is given back however
     * the task ends. For an adaptive limit, a task that returns is a sample of its latency; a task
     * that throws a {@link TimeoutException}, a {@link RejectedExecutionException} (such as another
     * limiter's {@link LimitExceededException}) or an {@link InterruptedIOException} (such as a
     * socket timeout) is a dropped call, a sign of overload; any other exception is no sample (its
     * latency says nothing about the load).
     *
     * @throws LimitExceededException as {@link #acquire()}, without running the task
     * @throws InterruptedException   if interrupted while waiting, without running the task
     * @throws Exception              whatever the task throws
     */
    @Blocking
    public <T> T call(Callable<T> task) throws Exception {
        Objects.requireNonNull(task, "task");
        Permit permit = gate.acquire();
        T result;
        try {
            result = task.call();
        } catch (Throwable t) {
            if (t instanceof TimeoutException
                    || t instanceof RejectedExecutionException
                    || t instanceof InterruptedIOException) {
                permit.closeDropped();
            } else {
                permit.closeIgnored();
            }
            throw t;
        }
        permit.close();
        return result;
    }

    /** The limiter's name. */
    public String name() {
        return name;
    }

    /**
     * How many callers may be in at once: the fixed number the limiter was built with, or the
     * adaptive limit's current value (at least 1).
     */
    public int permits() {
        return gate.permits();
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
        return gate.inUse();
    }

    /** Callers waiting for a permit now. */
    public int waiting() {
        return gate.waiting();
    }

    /** Callers rejected since the limiter was built. */
    public long rejected() {
        return gate.rejected();
    }

    @Override
    public String toString() {
        return "Limiter[" + name + ": " + inUse() + "/" + permits() + " in use, " + waiting() + " waiting]";
    }

    /**
     * A held permit. Give it back once, with one of the {@code close} methods; later calls do
     * nothing. For a limiter with an {@link AdaptiveLimit}, how it is given back is what the
     * algorithm learns from: {@link #close()} reports a completed call and its latency (the time
     * the permit was held), {@link #closeDropped()} a dropped one, {@link #closeIgnored()}
     * nothing. For a fixed limiter the three are the same.
     */
    public static final class Permit implements AutoCloseable {
        private static final VarHandle RELEASED;

        static {
            try {
                RELEASED = MethodHandles.lookup().findVarHandle(Permit.class, "released", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Gate gate;
        final long startNanos;
        final int inFlight;

        @SuppressWarnings("unused") // through RELEASED
        private volatile boolean released;

        Permit(Gate gate, long startNanos, int inFlight) {
            this.gate = gate;
            this.startNanos = startNanos;
            this.inFlight = inFlight;
        }

        /** Gives the permit back, once: the call it covered completed. */
        @Override
        public void close() {
            release(true, false);
        }

        /**
         * Gives the permit back, once: the call it covered was dropped (it timed out, or what it
         * called shed it), a sign of overload that lowers an adaptive limit.
         */
        public void closeDropped() {
            release(true, true);
        }

        /**
         * Gives the permit back, once, reporting nothing: the call failed in a way that says
         * nothing about the load (a bad request, a bug), or never really ran.
         */
        public void closeIgnored() {
            release(false, false);
        }

        private void release(boolean sample, boolean dropped) {
            if (RELEASED.compareAndSet(this, false, true)) {
                gate.release(this, sample, dropped);
            }
        }
    }

    /** Configures a {@link Limiter}. */
    public static final class Builder {
        private final String name;
        private final int permits;
        private final AdaptiveLimit adaptive;
        private int maxWaiting = Integer.MAX_VALUE;
        private Duration maxWait;

        private Builder(String name, int permits, AdaptiveLimit adaptive) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("a limiter needs a name for its messages, e.g. \"db\"");
            }
            if (adaptive == null && permits <= 0) {
                throw new IllegalArgumentException("limiter " + name + ": permits must be positive; got " + permits);
            }
            this.name = name;
            this.permits = permits;
            this.adaptive = adaptive;
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
                throw new IllegalArgumentException(
                        "limiter " + name + ": maxWait must not be negative; got " + maxWait);
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
