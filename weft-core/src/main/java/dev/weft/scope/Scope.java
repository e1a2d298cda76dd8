package dev.weft.scope;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import dev.weft.limit.Limiter;
import dev.weft.thread.internal.VirtualTimer;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jetbrains.annotations.Blocking;

/**
 * A structured scope: subtasks forked on virtual threads that all end before the scope does.
 *
 * <p>The thread that opens a scope owns it; only the owner may {@link #fork}, {@link #join},
 * {@link #cancel} and {@link #close} it. Each fork starts a virtual thread named
 * {@code weft-<name>-<n>} that runs the task with the {@link ContextKey}s bound at the fork. A
 * {@link Joiner} decides when the scope has its outcome and what {@link #join()} returns; weft's
 * own have the JDK's names, and you may write your own:
 *
 * <ul>
 *   <li>{@link Joiner#awaitAllSuccessfulOrThrow()} (the default): fail fast. The first failure
 *       cancels the other subtasks (interrupts them) and {@link #join()} throws that original
 *       exception, with the failures of the siblings that failed on their own added as suppressed;
 *       {@link Joiner#allSuccessfulOrThrow()} the same, join returning every result.
 *   <li>{@link Joiner#anySuccessfulResultOrThrow()}: the first subtask to succeed wins and the rest
 *       are cancelled; join returns its result, and throws only when every subtask failed.
 *   <li>{@link Joiner#awaitAll()}: wait for every subtask; {@link #join()} throws no subtask's
 *       exception; each {@link Subtask} has its own outcome.
 * </ul>
 *
 * <p>A scope may have a deadline ({@link Builder#timeout}, {@link Builder#deadline}): when it
 * passes, the scope is cancelled and {@code join} throws {@link TimeoutException}. It may cap how
 * many subtasks run at once ({@link Builder#maxConcurrency}, or a shared {@link Limiter} with
 * {@link Builder#limiter}): {@code fork} then waits in the owner for a permit, and starts the
 * subtask's thread only once it has one, so a scope over a million elements has at most the
 * cap's threads running tasks. That wait ends when the scope is cancelled (a failure, the
 * deadline, {@link #cancel}). Interrupting the owner while it waits in {@code join} or
 * {@code fork} cancels the scope. Scopes nest: a subtask may open a scope of its
 * own, and cancelling the outer scope interrupts it, which cancels the inner one.
 *
 * <pre>{@code
 * try (Scope scope = Scope.open()) {
 *     Subtask<User> user = scope.fork(() -> fetchUser(id));
 *     Subtask<List<Order>> orders = scope.fork(() -> fetchOrders(id));
 *     scope.join();                        // throws the first failure; the other fork is cancelled
 *     return new Page(user.get(), orders.get());
 * }
 *
 * Joiner<byte[]> first = Joiner.anySuccessfulResultOrThrow();
 * try (Scope scope = Scope.builder().name("mirrors").joiner(first).timeout(Duration.ofSeconds(2)).open()) {
 *     mirrors.forEach(m -> scope.fork(() -> download(m)));
 *     return scope.join(first);            // the first download wins, the others are interrupted
 * }
 * }</pre>
 *
 * <p><b>Nothing leaks.</b> {@link #join()} and {@link #close()} return only after every thread
 * the scope started has finished its task. {@code close} cancels what is still running first, and
 * waits even if the owner is interrupted (it re-asserts the interrupt afterwards).
 *
 * <p><b>The current scope.</b> {@link #current()} is the innermost open scope the calling thread
 * owns, or else the scope whose subtask (or {@link #spawn spawned} thread) the calling thread is or
 * was started from with weft's context conveyance. Other weft APIs use it to tie their threads to
 * the scope they start in ({@link #spawn}).
 *
 * <p>Memory consistency effects: actions in the owner before {@code fork} happen-before the
 * subtask runs; actions in a subtask happen-before the owner returns from {@code join} or
 * {@code close}.
 *
 * <p>Built on final JDK APIs only (virtual threads, locks); no preview feature.
 */
public final class Scope implements AutoCloseable {

    /**
     * The three policies of earlier releases, each a factory of a new {@link Joiner} per scope.
     * @deprecated give a joiner instead ({@link Builder#joiner}, {@link Scope#open(Joiner)}):
     *             {@code ALL_SUCCEED} is {@link Joiner#awaitAllSuccessfulOrThrow()},
     *             {@code FIRST_SUCCESS} {@link Joiner#anySuccessfulResultOrThrow()} (whose join
     *             returns the winner's result), {@code AWAIT_ALL} {@link Joiner#awaitAll()};
     *             removed in the next release
     */
    @Deprecated(since = "0.1.0")
    public enum Policy {
        /** Every subtask must succeed: {@link Joiner#awaitAllSuccessfulOrThrow()}. */
        ALL_SUCCEED,
        /** The first subtask to succeed wins, join returning null: {@link Joiner#anySuccessfulResultOrThrow()}. */
        FIRST_SUCCESS,
        /** Wait for every subtask, whatever its outcome: {@link Joiner#awaitAll()}. */
        AWAIT_ALL;

        /** A new joiner of this policy, for one scope. */
        public Joiner<Void> newJoiner() {
            return Joiners.ofPolicy(this);
        }
    }

    /*
     * A facade over package-private mechanisms, each with its protocol and invariants at the top
     * of its file: ScopeState (open, or what settled the outcome first; closed), Flock (the
     * threads: forks, completions, spawned threads, the owner's wait, the interrupt sweep),
     * Outcome (the joiner asked at forks, completions and join), ScopeTree (the current scope,
     * nesting, scopes left open), PermitWait (ending the owner's wait for a permit), ScopeBuilder
     * (the options). Cancelling: settle the state once, then sweep. Deadlines: VirtualTimer.
     */

    private final String name;

    @SuppressWarnings("deprecation")
    private final Policy policy; // null for a joiner of the caller's own

    private final Joiner<?> joiner;
    private final Thread owner;
    private final Limiter limiter;
    private final ThreadFactory threads;
    private final Duration timeout;
    private final long deadlineNanos; // System.nanoTime() of the deadline, or Long.MAX_VALUE
    private final ScheduledFuture<?> deadlineTask;
    private final ScopeState state = new ScopeState();
    private final Flock flock = new Flock();
    private final PermitWait permitWait;
    final ScopeTree tree;
    private final Outcome outcome;
    private int forkedSinceJoin; // owner only
    private long forks; // owner only
    private final ScopeEvent jfr = ScopeEvent.opened(); // null unless a recording enables dev.weft.Scope

    Scope(ScopeBuilder o) {
        long opened = System.nanoTime();
        long delay = o.delayNanos();
        this.name = o.name;
        this.policy = o.policyForScope();
        this.joiner = o.joinerForScope();
        this.outcome = new Outcome(joiner, state, this::sweep);
        if (joiner instanceof Joiners.Builtin<?> builtin) {
            builtin.bind(this); // weft's joiners name their scope in messages, and serve only it
        }
        this.owner = Thread.currentThread();
        this.permitWait = new PermitWait(owner);
        this.limiter = o.limiterForScope();
        this.threads = o.threadsForScope();
        this.tree = new ScopeTree(this);
        this.timeout = o.timeout;
        this.deadlineNanos = delay < 0 ? Long.MAX_VALUE : opened + delay;
        this.deadlineTask = delay < 0 ? null : VirtualTimer.schedule(this::expire, delay, TimeUnit.NANOSECONDS);
        tree.enter();
    }

    /** The {@link System#nanoTime()} at which the deadline passes; {@code Long.MAX_VALUE} without one. */
    long deadlineNanos() {
        return deadlineNanos;
    }

    /** Opens a scope with the default options: {@link Joiner#awaitAllSuccessfulOrThrow()}, name "scope", no deadline, no cap. */
    public static Scope open() {
        return builder().open();
    }

    /** Opens a scope decided by {@code joiner} (a new one: a joiner serves one scope) and otherwise the default options. */
    public static Scope open(Joiner<?> joiner) {
        return builder().joiner(joiner).open();
    }

    /**
     * Opens a scope with {@code policy} and otherwise the default options.
     * @deprecated use {@link #open(Joiner)}; removed in the next release
     */
    @Deprecated(since = "0.1.0")
    public static Scope open(Policy policy) {
        return builder().policy(policy).open();
    }

    /** Starts configuring a scope; {@link Builder#open()} opens it, owned by the calling thread. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The current scope: the innermost open scope the calling thread owns, else the open scope
     * that started the calling thread (a subtask or {@link #spawn spawned} thread, or a thread
     * started from one with weft's context conveyance), else empty.
     */
    public static Optional<Scope> current() {
        return ScopeTree.current();
    }

    /**
     * The scope the calling thread belongs to, whether or not it has ended: the innermost open
     * scope the thread owns, else the scope that started the thread (a subtask or {@link #spawn
     * spawned} thread, or a thread started from one with weft's context conveyance) even when that
     * scope is cancelled or closed by now, else empty. Where {@link #current()} moves on to the
     * enclosing scope once a scope has closed, this one does not: code that starts threads on the
     * caller's behalf uses it so that a thread still running in an ended scope (being cancelled)
     * is refused by that scope ({@link #spawn} throws) rather than escaping to an enclosing one.
     *
     * @throws CancellationException when the calling thread was started in a scope that has since
     *                               closed and let go of its state (a thread started from a
     *                               subtask through context conveyance, outliving the scope): it
     *                               belongs to no open scope and must not pass for an unscoped one
     */
    public static Optional<Scope> currentOrEnded() {
        return ScopeTree.currentOrEnded();
    }

    /** The scope's name, used for its threads ({@code weft-<name>-<n>}) and messages. */
    public String name() {
        return name;
    }

    /**
     * The scope's policy, or null when it was opened with a {@link Builder#joiner joiner}.
     * @deprecated use {@link #joiner()}; removed in the next release
     */
    @Deprecated(since = "0.1.0")
    public Policy policy() {
        return policy;
    }

    /** The joiner that decides the scope's outcome: the default's, a policy's, or the caller's own. */
    public Joiner<?> joiner() {
        return joiner;
    }

    /** The thread that opened the scope and alone may fork, join, cancel and close it. */
    public Thread owner() {
        return owner;
    }

    /** The limiter capping how many subtasks run at once, if any. */
    public Optional<Limiter> limiter() {
        return Optional.ofNullable(limiter);
    }

    /** True once the scope was cancelled: its outcome is decided and unfinished subtasks are interrupted. */
    public boolean isCancelled() {
        return state.isCancelled();
    }

    /** True once {@link #close()} has begun. */
    public boolean isClosed() {
        return state.isClosed();
    }

    /**
     * Forks {@code task}: runs it on a new virtual thread with the context keys bound now. With a
     * cap, waits in the owner until a permit is free. If the scope is already cancelled the task is
     * not started and the subtask is {@link Subtask.State#CANCELLED}; so it is too when the owner is
     * interrupted while waiting for a permit, which also cancels the scope (and leaves the
     * interrupt set for {@code join} to throw).
     *
     * @return the subtask, whose outcome is known after {@link #join()}
     * @throws WrongThreadException  if the calling thread is not the owner
     * @throws IllegalStateException if the scope is closed
     * @throws dev.weft.limit.LimitExceededException if a shared limiter with a bounded wait turns
     *                               the fork away (the task is not started; the scope goes on)
     * @throws NullPointerException  if {@code task} is null
     */
    @Blocking
    public <T> Subtask<T> fork(Callable<? extends T> task) {
        checkOwner("fork");
        Objects.requireNonNull(task, "task");
        if (state.isClosed()) {
            throw new IllegalStateException("scope " + name + " is closed; fork inside the scope's block,"
                    + " before close, or open a new scope");
        }
        Limiter.Permit permit = limiter != null && !state.isCancelled()
                ? permitWait.acquire(limiter, state, () -> cancel(ScopeState.CANCELLED))
                : null;
        Subtask<T> subtask = new Subtask<>(this, task, permit, forks++);
        forkedSinceJoin++;
        boolean started = limiter == null || permit != null;
        Thread thread;
        try {
            if (started && !state.isCancelled()) {
                outcome.forked(subtask); // the joiner may decide the scope with this fork
            }
            if (!started || state.isCancelled()) {
                subtask.cancelUnstarted();
                return subtask;
            }
            Context.Snapshot context = tree.forkContext();
            thread = threads.newThread(() -> context.run(subtask::run));
        } catch (Throwable e) {
            subtask.cancelUnstarted();
            throw e;
        }
        try {
            if (flock.publish(subtask, thread, state)) {
                thread.start();
            }
        } catch (Throwable e) {
            // No thread after all: the failure is the subtask's own, so join reports it; its
            // permit goes back, as its thread would have given it back.
            subtask.release();
            completed(subtask, null, e);
            throw e;
        }
        return subtask;
    }

    /**
     * Starts {@code task} on a new virtual thread that the scope owns but does not join: a
     * background thread (a process, a pump) that ends with the scope. {@link #join()} does not wait
     * for it and its outcome does not count for the joiner; {@link #cancel()} and {@link #close()}
     * interrupt it if it is still running, and {@code close} waits for it to end. An exception that
     * escapes {@code task} goes to the thread's uncaught-exception handler, as for any thread.
     * Unlike {@code fork}, any thread may call it while the scope is open, so code running inside
     * the scope (see {@link #current()}) can tie its threads to it.
     *
     * @return the started thread
     * @throws IllegalStateException if the scope is closed
     * @throws CancellationException if the scope is cancelled (the task is not started)
     */
    public Thread spawn(Runnable task) {
        Objects.requireNonNull(task, "task");
        Context.Snapshot context = tree.within(Context.capture());
        Thread t = flock.spawn(threads, () -> tree.runSpawned(() -> context.run(task)), state);
        if (t == null) {
            throw state.isClosed()
                    ? new IllegalStateException(
                            "scope " + name + " is closed; spawn while it is open, or in a new scope")
                    : new CancellationException("scope " + name + " is cancelled; nothing more starts in it");
        }
        return t;
    }

    /** A subtask's completion, in its thread: see {@link Outcome}. */
    <T> void completed(Subtask<T> subtask, T value, Throwable failure) {
        outcome.completed(subtask, value, failure);
        subtask.thread = null; // ended: nothing to interrupt, and the thread can be collected
        flock.ended();
    }

    /** Settles the state with {@code cause} if it is open, and then sweeps. */
    private void cancel(int cause) {
        if (state.cancel(cause)) {
            sweep();
        }
    }

    /** Ends the owner's wait for a permit and interrupts every running subtask and spawned thread. */
    private void sweep() {
        permitWait.interruptOwner();
        flock.interruptAll();
    }

    /**
     * Cancels the scope: subtasks that have not completed are interrupted and will be
     * {@link Subtask.State#CANCELLED}, spawned threads are interrupted, and later forks do not
     * start. {@link #join()} still waits for the threads to end, then returns normally unless a
     * failure was recorded before the cancel (all-succeed) or the deadline had passed. Does
     * nothing if already cancelled.
     *
     * @throws WrongThreadException if the calling thread is not the owner
     */
    public void cancel() {
        checkOwner("cancel");
        cancel(ScopeState.DISCARDED);
    }

    /** What the timer runs at the deadline: times the scope out unless it already has its outcome. */
    void expire() {
        cancel(ScopeState.TIMED_OUT);
    }

    /**
     * Waits until every forked thread has ended, then returns or throws the scope's outcome, as
     * its {@link Joiner} says (see there). After {@link #cancel()} with nothing decided it returns
     * normally: the owner discarded the outcome. May be called again after more forks.
     * {@link #join(Joiner)} returns what the joiner gives.
     *
     * @throws Exception             the original exception of the first subtask to fail, with the
     *                               failures of its siblings added as suppressed (all must
     *                               succeed), or when every subtask failed (first success); what
     *                               a joiner of your own throws
     * @throws TimeoutException      if the deadline passed before the outcome (the unfinished
     *                               subtasks were cancelled)
     * @throws InterruptedException  if the owner was interrupted; the scope was cancelled and every
     *                               thread has ended
     * @throws NoSuchElementException under a first-success joiner, if no subtask was forked
     * @throws WrongThreadException  if the calling thread is not the owner
     * @throws IllegalStateException if the scope is closed
     */
    @Blocking
    public void join() throws Exception {
        awaitOutcome();
    }

    /**
     * {@link #join()}, returning the result of {@code joiner}, which must be this scope's (the one
     * it was opened with): {@code List<Page> pages = scope.join(all);}.
     *
     * @throws IllegalArgumentException if {@code joiner} is not this scope's joiner
     */
    @Blocking
    @SuppressWarnings("unchecked") // checked: it is this scope's joiner, whose result is an R
    public <R> R join(Joiner<R> joiner) throws Exception {
        if (joiner != this.joiner) {
            checkOwner("join");
            throw new IllegalArgumentException("scope " + name + " is decided by " + this.joiner + ", not by " + joiner
                    + "; pass the joiner the scope was opened with, or call join()");
        }
        return (R) awaitOutcome();
    }

    private Object awaitOutcome() throws Exception {
        checkOwner("join");
        if (state.isClosed()) {
            throw new IllegalStateException("scope " + name + " is closed; join before close");
        }
        boolean interrupted = Thread.interrupted();
        if (interrupted) {
            cancel(ScopeState.CANCELLED);
        }
        interrupted |= flock.await(false, () -> cancel(ScopeState.CANCELLED));
        forkedSinceJoin = 0;
        if (interrupted) {
            throw new InterruptedException("scope " + name + ": owner " + owner.getName()
                    + " was interrupted while joining; the scope was cancelled and its threads have ended");
        }
        return ScopeEvent.joined(jfr, () -> outcome.result(name, timeout));
    }

    /**
     * Closes the scope: cancels whatever is still running (subtasks and spawned threads), waits
     * until every thread the scope started has ended, even if interrupted (the interrupt is
     * re-asserted afterwards), and stops being the current scope. Scopes opened inside this one by
     * the same thread and still open are closed first. Closing again does nothing.
     *
     * @throws WrongThreadException  if the calling thread is not the owner
     * @throws IllegalStateException after closing, if subtasks were forked since the last
     *                               {@link #join()} and the scope was not cancelled: their
     *                               outcomes would be lost, so join before close (or cancel)
     */
    @Blocking
    @Override
    public void close() {
        checkOwner("close");
        IllegalStateException innerUnjoined = tree.closeNested();
        int before = state.close();
        if ((before & ScopeState.CLOSED) != 0) {
            return;
        }
        boolean unjoined = forkedSinceJoin > 0 && before == ScopeState.OPEN;
        boolean interrupted;
        try {
            if (before == ScopeState.OPEN) {
                sweep();
            }
            interrupted = flock.await(true, () -> {});
        } finally {
            if (deadlineTask != null) {
                deadlineTask.cancel(false);
            }
            tree.leave();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        ScopeEvent.closed(jfr, name, joiner, forks, unjoined, before != ScopeState.OPEN);
        if (unjoined) {
            throw new IllegalStateException("scope " + name + " was closed with subtasks forked after the last join;"
                    + " they were cancelled and their outcomes lost. Join the scope before it closes, or cancel it to"
                    + " discard them (join() / cancel())");
        }
        if (innerUnjoined != null) {
            throw innerUnjoined;
        }
    }

    private void checkOwner(String what) {
        if (Thread.currentThread() != owner) {
            throw new WrongThreadException("only the owner of scope " + name + " (" + owner + ") may " + what
                    + " it, not " + Thread.currentThread() + "; " + what + " from the thread that opened the scope,"
                    + " or open a scope in this thread");
        }
    }

    @Override
    public String toString() {
        return "Scope[" + name + ", " + joiner + ", " + flock.running() + " running"
                + (state.isCancelled() ? ", cancelled" : "") + (state.isClosed() ? ", closed" : "") + "]";
    }

    /**
     * Configures a {@link Scope}: {@code name}, {@code joiner}, {@code timeout} or
     * {@code deadline}, {@code maxConcurrency} or {@code limiter}; {@code open()} opens it, owned
     * by the calling thread. Options that exclude each other replace each other: the last one set
     * wins. (The methods are written in the package-private ScopeBuilder, this class's body.)
     */
    public static final class Builder extends ScopeBuilder {
        private Builder() {}
    }
}
