package dev.weft.scope;

import dev.weft.limit.Limiter;
import dev.weft.thread.ThreadPolicy;
import dev.weft.thread.WeftThreads;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;

/**
 * The body of {@link Scope.Builder}, which is this class under its public name: the options a
 * scope is opened with, checked as they are set (each error names the option and the fix), and
 * what a scope makes of them when it opens (its joiner, limiter, thread factory and deadline).
 * Its public methods are {@code Scope.Builder}'s (as {@code AbstractStringBuilder}'s are
 * {@code StringBuilder}'s), so users keep writing {@code Scope.builder().name("x").open()}.
 *
 * <p>Options that exclude each other replace each other (joiner / policy, timeout / deadline,
 * maxConcurrency / limiter): the last one set wins.
 */
@SuppressWarnings("deprecation") // Scope.Policy: kept as an alias of the joiner factories
abstract sealed class ScopeBuilder permits Scope.Builder {
    String name = "scope";
    Scope.Policy policy = Scope.Policy.ALL_SUCCEED;
    Joiner<?> joiner;
    Duration timeout;
    Instant deadline;
    int maxConcurrency;
    Limiter limiter;
    ThreadFactory threads;

    ScopeBuilder() {}

    private Scope.Builder self() {
        return (Scope.Builder) this;
    }

    /**
     * The scope's name: its threads are {@code weft-<name>-<n>}. Default "scope".
     *
     * @throws IllegalArgumentException if blank or containing whitespace
     */
    public Scope.Builder name(String name) {
        this.name = WeftThreads.checkName(name);
        return self();
    }

    /**
     * The joiner that decides the outcome (see {@link Joiner}); {@link Scope#join(Joiner)}
     * returns its result. A joiner serves one scope: give a new one before opening this builder
     * again. Default: a new {@link Joiner#awaitAllSuccessfulOrThrow()} per scope.
     */
    public Scope.Builder joiner(Joiner<?> joiner) {
        this.joiner = Objects.requireNonNull(joiner, "joiner");
        this.policy = Scope.Policy.ALL_SUCCEED;
        return self();
    }

    /**
     * The policy; each scope opened gets a new joiner of it. Replaces a {@code joiner}.
     *
     * @deprecated use {@code joiner} with a {@link Joiner} factory (see {@link Scope.Policy});
     *             removed in the next release
     */
    @Deprecated(since = "0.1.0")
    public Scope.Builder policy(Scope.Policy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.joiner = null;
        return self();
    }

    /**
     * Cancels the scope {@code timeout} after it opens, if it has not its outcome by then. The
     * time counts from each {@code open()}, so a builder may be kept and opened again. Replaces a
     * {@code deadline}.
     *
     * @throws IllegalArgumentException if negative
     */
    public Scope.Builder timeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("scope " + name + ": timeout must not be negative; got " + timeout);
        }
        this.timeout = timeout;
        this.deadline = null;
        return self();
    }

    /**
     * Cancels the scope at {@code deadline} (wall clock), if it has not its outcome by then; a
     * deadline already past when the scope opens cancels it at once. Replaces a {@code timeout}.
     */
    public Scope.Builder deadline(Instant deadline) {
        this.deadline = Objects.requireNonNull(deadline, "deadline");
        this.timeout = null;
        return self();
    }

    /**
     * At most {@code n} subtasks run at once; {@code fork} waits in the owner for one to end.
     * Default: no cap. Replaces a {@code limiter}.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Scope.Builder maxConcurrency(int n) {
        if (n <= 0) {
            throw new IllegalArgumentException(
                    "scope " + name + ": maxConcurrency must be positive; got " + n + " (leave it unset for no cap)");
        }
        this.maxConcurrency = n;
        this.limiter = null;
        return self();
    }

    /**
     * Subtasks run holding a permit of {@code limiter}, which other scopes and code may share;
     * {@code fork} takes the permit in the owner, by the limiter's rules (a bounded limiter may
     * reject the fork). Replaces a {@code maxConcurrency}.
     */
    public Scope.Builder limiter(Limiter limiter) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.maxConcurrency = 0;
        return self();
    }

    /** Starts the scope's threads with {@code threads}: for tests of a thread that cannot be started. */
    Scope.Builder threads(ThreadFactory threads) {
        this.threads = Objects.requireNonNull(threads, "threads");
        return self();
    }

    /** Opens the scope, owned by the calling thread, which it becomes the current scope of. */
    public Scope open() {
        return new Scope(this);
    }

    /** The policy a scope opened now reports: null when it has a joiner of the caller's own. */
    Scope.Policy policyForScope() {
        return joiner == null ? policy : null;
    }

    /** The joiner of a scope opened now: the caller's own, or a new one of the policy. */
    Joiner<?> joinerForScope() {
        return joiner != null ? joiner : policy.newJoiner();
    }

    /** The limiter of a scope opened now, or null for no cap; maxConcurrency makes one per scope. */
    Limiter limiterForScope() {
        return limiter != null ? limiter : maxConcurrency > 0 ? Limiter.of(name, maxConcurrency) : null;
    }

    ThreadFactory threadsForScope() {
        return threads != null ? threads : WeftThreads.factory(name, ThreadPolicy.VIRTUAL);
    }

    /**
     * Nanoseconds from now to the deadline (0 when it has passed), or -1 without one. A timeout
     * counts from now, when the scope opens, not from the builder call: a builder kept in a field
     * and opened per request gives every scope the whole timeout.
     */
    long delayNanos() {
        if (timeout != null) {
            return Math.max(0, saturatedNanos(timeout));
        }
        if (deadline != null) {
            return Math.max(0, saturatedNanos(Duration.between(Instant.now(), deadline)));
        }
        return -1;
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? 0 : Long.MAX_VALUE / 2;
        }
    }
}
