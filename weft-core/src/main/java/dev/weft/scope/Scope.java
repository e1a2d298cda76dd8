package dev.weft.scope;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import dev.weft.jfr.ScopeEvent;
import dev.weft.limit.Limiter;
import dev.weft.thread.ThreadPolicy;
import dev.weft.thread.VirtualTimer;
import dev.weft.thread.WeftThreads;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jetbrains.annotations.Blocking;

/**
 * A structured scope: subtasks forked on virtual threads that all end before the scope does.
 *
 * <p>The thread that opens a scope owns it; only the owner may {@link #fork}, {@link #join},
 * {@link #cancel} and {@link #close} it. Each fork starts a virtual thread named
 * {@code weft-<name>-<n>} that runs the task with the {@link ContextKey}s bound at the fork. A
 * {@link Joiner} decides when the scope has its outcome and what {@link #join()} returns; the
 * three {@link Policy policies} are joiners, and you may write your own:
 *
 * <ul>
 *   <li>{@link Policy#ALL_SUCCEED} (the default): fail fast. The first failure cancels the other
 *       subtasks (interrupts them) and {@link #join()} throws that original exception, with the
 *       failures of the siblings that failed on their own added as suppressed.
 *   <li>{@link Policy#FIRST_SUCCESS}: the first subtask to succeed wins and the rest are
 *       cancelled; {@link #join()} throws only when every subtask failed.
 *   <li>{@link Policy#AWAIT_ALL}: wait for every subtask; {@link #join()} throws no subtask's
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
 * try (Scope scope = Scope.builder().name("mirrors").policy(Scope.Policy.FIRST_SUCCESS)
 *                         .timeout(Duration.ofSeconds(2)).open()) {
 *     List<Subtask<byte[]>> tries = mirrors.stream().map(m -> scope.fork(() -> download(m))).toList();
 *     scope.join();                        // the first download wins, the others are interrupted
 *     return tries.stream().filter(t -> t.state() == Subtask.State.SUCCESS).findFirst().orElseThrow().get();
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
     * The three policies: each makes a new {@link Joiner} for every scope it opens (a joiner
     * serves one scope). Give one to {@link Builder#policy}, or a joiner of your own to
     * {@link Builder#joiner}.
     */
    public enum Policy {
        /** Every subtask must succeed; the first failure cancels the rest and is thrown by {@code join}: {@link Joiner#allSucceed()}. */
        ALL_SUCCEED {
            @Override
            public Joiner<Void> newJoiner() {
                return Joiner.allSucceed();
            }
        },
        /** The first subtask to succeed wins and the rest are cancelled; {@code join} throws when all failed: {@link Joiner#firstSuccess()}. */
        FIRST_SUCCESS {
            @Override
            public Joiner<Void> newJoiner() {
                return Joiner.firstSuccess();
            }
        },
        /** Wait for every subtask, whatever its outcome; {@code join} throws no subtask's exception: {@link Joiner#awaitAll()}. */
        AWAIT_ALL {
            @Override
            public Joiner<Void> newJoiner() {
                return Joiner.awaitAll();
            }
        };

        /** A new joiner of this policy, for one scope. */
        public abstract Joiner<Void> newJoiner();
    }

    /*
     * Implementation overview. The fork/complete path takes no lock and shares no contended
     * counter with the owner. The owner appends each forked subtask to an array it alone writes
     * and publishes the count with a volatile write; a canceller reads the count, then the array,
     * and interrupts every thread still recorded (a subtask clears its thread when it ends). A
     * fork re-checks the cancelled flag after publishing, so every subtask is either seen by the
     * canceller or never started (both are volatile: one of the two sees the other). Completions
     * increment one counter; the owner waits on a condition until completions reach its fork
     * count, and a completion takes the lock to wake it only when the owner said it is waiting,
     * so a scope of a million forks touches the lock about once. A lock guards only what is rare:
     * failures, spawned threads, closing. (A lock, or a shared concurrent set, on the hot path
     * made a fork cost several bare virtual threads.) A completion that finds the scope cancelled
     * makes its subtask CANCELLED: that is what keeps a loser's result from leaking. What a
     * completion means is the joiner's (the policy); the scope only lets one completion decide
     * (a compare-and-set), so a first-success scope has one winner. A completion shows its outcome
     * to its own thread while the joiner looks at it, and to everyone once the scope accepted it.
     * Deadlines run on weft's JVM-wide VirtualTimer.
     *
     * Threads started in a scope find it through a hidden context key that holds a Handle, not
     * the scope: a snapshot captured inside a scope may live on (in a wrapped task, a cache), and
     * must not keep the closed scope, its subtasks and their results reachable. Close empties
     * the handle; the chain of parent handles is all a snapshot keeps.
     */

    private static final ThreadLocal<Scope> OWNED = new ThreadLocal<>();
    private static final ContextKey<Handle> CURRENT = ContextKey.hidden("weft.scope");

    /** Owner states while it waits for a permit in fork; see {@link #acquirePermit()}. */
    private static final int NOT_WAITING = 0;
    private static final int WAITING = 1;
    private static final int INTERRUPTED = 2;

    private final String name;
    private final Policy policy;                                  // null for a joiner of the caller's own
    private final Joiner<?> joiner;
    private final Thread owner;
    private final Handle handle;
    private final Scope previouslyOwned;
    private final Scope openedIn;                                 // the scope whose fork or spawned thread opened this one
    private final Set<Scope> openedByForks = new HashSet<>();     // guarded by lock: scopes opened in this one's threads
    private volatile int openedByForksCount;                      // their number, read without the lock
    private final Limiter limiter;
    private final ThreadFactory threads;
    private final Duration timeout;
    private final long deadlineNanos;
    private final AtomicInteger ownerWait = new AtomicInteger(NOT_WAITING);
    private final ReentrantLock interrupting = new ReentrantLock();   // a canceller interrupting the owner's wait

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private volatile Subtask<?>[] forked = new Subtask<?>[16];   // written by the owner only
    private volatile long forkCount;                              // written by the owner only
    private final AtomicLong completedCount = new AtomicLong();
    private volatile boolean ownerWaiting;
    private final AtomicBoolean decided = new AtomicBoolean();    // a completion (or fork) decided the scope
    private final Set<Thread> spawned = new HashSet<>();          // guarded by lock
    private volatile boolean cancelled;
    private volatile boolean closed;
    private boolean timedOut;                                     // guarded by lock
    private volatile boolean cancelledByOwner;                    // cancel() with nothing decided yet
    private volatile Throwable joinerFailure;                     // what the joiner itself threw, first
    private int forkedSinceJoin;                                  // owner only
    private long forks;                                           // owner only
    private final ScheduledFuture<?> deadlineTask;

    private Context.Snapshot forkBase;
    private Context.Snapshot forkContext;
    private final ScopeEvent jfr = ScopeEvent.opened();            // null unless a recording enables dev.weft.Scope

    private Scope(Builder b) {
        long opened = System.nanoTime();
        this.name = b.name;
        this.policy = b.joiner == null ? b.policy : null;
        this.joiner = b.joiner != null ? b.joiner : b.policy.newJoiner();
        if (joiner instanceof Joiners.Builtin builtin) {
            builtin.bind(this);   // a policy's joiner names its scope in its messages, and serves only it
        }
        this.owner = Thread.currentThread();
        Scope enclosing = current().orElse(null);
        this.handle = new Handle(this, enclosing != null ? enclosing.handle : null);
        this.limiter = b.limiter != null ? b.limiter
                : b.maxConcurrency > 0 ? Limiter.of(b.name, b.maxConcurrency) : null;
        this.threads = b.threads != null ? b.threads : WeftThreads.factory(b.name, ThreadPolicy.VIRTUAL);
        this.previouslyOwned = OWNED.get();
        // Opened in a thread of another scope (not by its owner, whose nested scopes close with it):
        // that scope closes this one if the thread ends and leaves it open.
        this.openedIn = enclosing != null && enclosing.owner != owner ? enclosing : null;
        if (openedIn != null) {
            openedIn.adopt(this);
        }
        // A timeout counts from now, when the scope opens, not from the builder call: a builder
        // kept in a field and opened per request gives every scope the whole timeout.
        Long delay = b.timeout != null ? Long.valueOf(saturatedNanos(b.timeout))
                : b.deadline != null ? Long.valueOf(saturatedNanos(Duration.between(Instant.now(), b.deadline)))
                : null;
        if (delay != null) {
            this.timeout = b.timeout;
            this.deadlineNanos = opened + Math.max(0, delay);
            this.deadlineTask = VirtualTimer.schedule(this::expire, Math.max(0, delay), TimeUnit.NANOSECONDS);
        } else {
            this.timeout = null;
            this.deadlineNanos = Long.MAX_VALUE;
            this.deadlineTask = null;
        }
        OWNED.set(this);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? 0 : Long.MAX_VALUE / 2;
        }
    }

    /** The {@link System#nanoTime()} at which the deadline passes; {@code Long.MAX_VALUE} without one. */
    long deadlineNanos() {
        return deadlineNanos;
    }

    /** Opens a scope with the default options: policy {@link Policy#ALL_SUCCEED}, name "scope", no deadline, no cap. */
    public static Scope open() {
        return builder().open();
    }

    /** Opens a scope with {@code policy} and otherwise the default options. */
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
        Scope owned = OWNED.get();
        for (Handle h = owned != null ? owned.handle : CURRENT.get(); h != null; h = h.parent) {
            Scope s = h.scope;
            if (s != null && !s.isClosed()) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
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
        Scope owned = OWNED.get();
        if (owned != null) {
            return Optional.of(owned);
        }
        Handle h = CURRENT.get();
        if (h == null) {
            return Optional.empty();
        }
        Scope s = h.scope;
        if (s == null) {
            throw new CancellationException("this thread was started in a scope that has closed since;"
                    + " start new work from a thread of an open scope, or pass the scope to use explicitly");
        }
        return Optional.of(s);
    }

    /** The scope's name, used for its threads ({@code weft-<name>-<n>}) and messages. */
    public String name() {
        return name;
    }

    /** The scope's policy, or null when it was opened with a {@link Builder#joiner joiner} of the caller's own. */
    public Policy policy() {
        return policy;
    }

    /** The joiner that decides the scope's outcome: its policy's, or the caller's own. */
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
        return cancelled;
    }

    /** True once {@link #close()} has begun. */
    public boolean isClosed() {
        return closed;
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
        if (isClosed()) {
            throw new IllegalStateException("scope " + name + " is closed; fork inside the scope's block,"
                    + " before close, or open a new scope");
        }
        Limiter.Permit permit = limiter != null && !cancelled ? acquirePermit() : null;
        Subtask<T> subtask = new Subtask<>(this, task, permit, forks++);
        forkedSinceJoin++;
        if (!cancelled && (limiter == null || permit != null)) {
            boolean asks;
            try {
                asks = joiner.onFork(subtask);
            } catch (Throwable e) {
                subtask.cancelUnstarted();
                throw e;
            }
            if (asks && decided.compareAndSet(false, true)) {
                cancelAll();
            }
        }
        if (cancelled || (limiter != null && permit == null)) {
            subtask.cancelUnstarted();
            return subtask;
        }
        Context.Snapshot context = forkContext();
        Thread thread;
        try {
            thread = threads.newThread(() -> context.run(subtask::run));
        } catch (Throwable e) {
            subtask.cancelUnstarted();
            throw e;
        }
        // Set before the subtask is published, so a canceller that sees the subtask sees its thread.
        subtask.thread = thread;
        publish(subtask);
        if (cancelled) {
            // Cancelled while publishing: the canceller may not have seen it, so never start it.
            subtask.cancelUnstarted();
            ended();
            return subtask;
        }
        try {
            thread.start();
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
     * Takes a permit for a fork, waiting until one is free or the scope is cancelled: a
     * canceller (a failed subtask, the deadline) interrupts the owner while it waits here. Returns
     * null when the wait ended without a permit.
     *
     * <p>The owner tells an interrupt from a canceller from one from anyone else: only the latter
     * cancels the scope and stays set for {@code join} to throw. A canceller moves
     * {@code ownerWait} from WAITING to INTERRUPTED and interrupts, both under
     * {@code interrupting}; an owner that finds its wait taken over takes that lock too, so it
     * runs only once the interrupt is delivered, and clears it, so none leaks into the owner's
     * code. (An outside interrupt at the same instant as a cancel is absorbed by it; the scope is
     * cancelled either way.) Parking on the lock rather than spinning keeps a virtual owner from
     * holding a carrier the canceller may need.
     */
    private Limiter.Permit acquirePermit() {
        Limiter.Permit permit = null;
        boolean interrupted = false;
        ownerWait.set(WAITING);
        try {
            if (!cancelled) {   // read after WAITING is published: a canceller sees one or the other
                permit = limiter.acquire();
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (!ownerWait.compareAndSet(WAITING, NOT_WAITING)) {
                interrupting.lock();
                try {
                    Thread.interrupted();
                    interrupted = false;
                    ownerWait.set(NOT_WAITING);
                } finally {
                    interrupting.unlock();
                }
            }
        }
        if (interrupted) {
            cancelAll();
            Thread.currentThread().interrupt();
        }
        return permit;
    }

    /** Appends a forked subtask for cancellers to see; counts it as live. Owner only. */
    private void publish(Subtask<?> subtask) {
        Subtask<?>[] a = forked;
        int n = (int) forkCount;
        if (n == a.length) {
            a = java.util.Arrays.copyOf(a, n * 2);
            forked = a;
        }
        a[n] = subtask;
        forkCount = n + 1;
    }

    /** The keys bound now plus this scope as the current one, cached while the owner's keys stay the same. */
    private Context.Snapshot forkContext() {
        Context.Snapshot base = Context.capture();
        if (base != forkBase) {
            forkContext = base.with(CURRENT, handle);
            forkBase = base;
        }
        return forkContext;
    }

    /**
     * Starts {@code task} on a new virtual thread that the scope owns but does not join: a
     * background thread (a process, a pump) that ends with the scope. {@link #join()} does not wait
     * for it and its outcome does not count for the policy; {@link #cancel()} and {@link #close()}
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
        Context.Snapshot context = Context.capture().with(CURRENT, handle);
        Thread t = threads.newThread(() -> {
            try {
                context.run(task);
                IllegalStateException leftOpen = closeLeftOpen("a thread spawned in it");
                if (leftOpen != null) {
                    throw leftOpen;
                }
            } catch (Throwable e) {
                IllegalStateException leftOpen = closeLeftOpen("a thread spawned in it");
                if (leftOpen != null) {
                    e.addSuppressed(leftOpen);
                }
                throw e;
            } finally {
                spawnEnded(Thread.currentThread());
            }
        });
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("scope " + name + " is closed; spawn while it is open, or in a new scope");
            }
            if (cancelled) {
                throw new CancellationException("scope " + name + " is cancelled; nothing more starts in it");
            }
            spawned.add(t);
        } finally {
            lock.unlock();
        }
        try {
            t.start();
        } catch (Throwable e) {
            spawnEnded(t);   // never ran, so close must not wait for it
            throw e;
        }
        return t;
    }

    private void spawnEnded(Thread t) {
        lock.lock();
        try {
            spawned.remove(t);
            if (spawned.isEmpty()) {
                idle.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records a subtask's completion, in its thread: the joiner looks at it while the scope is
     * neither decided nor cancelled, and may decide the scope with it; a completion after that
     * (or one that asked to decide too late) is CANCELLED, its result discarded.
     */
    <T> void completed(Subtask<T> subtask, T value, Throwable failure) {
        if (cancelled || decided.get()) {
            discard(subtask, failure, true);
        } else {
            subtask.propose(failure == null ? Subtask.State.SUCCESS : Subtask.State.FAILED, value, failure);
            boolean asks;
            try {
                asks = joiner.onComplete(subtask);
            } catch (Throwable e) {
                joinerFailed(e);
                asks = true;
            }
            if (asks && decided.compareAndSet(false, true)) {
                subtask.accept();
                cancelAll();
            } else if (asks || cancelled || decided.get()) {
                discard(subtask, failure, false);
            } else {
                subtask.accept();
            }
        }
        subtask.thread = null;   // ended: nothing to interrupt, and the thread can be collected
        ended();
    }

    /**
     * Marks a completion that came after the scope's outcome CANCELLED. A failure of its own (not
     * the interrupt of the cancellation) goes to the joiner unless it saw it already.
     */
    private void discard(Subtask<?> subtask, Throwable failure, boolean tellJoiner) {
        subtask.complete(Subtask.State.CANCELLED, null, null);
        if (tellJoiner && failure != null && !(failure instanceof InterruptedException)) {
            try {
                joiner.onFailureAfterCancel(failure);
            } catch (Throwable e) {
                joinerFailed(e);
            }
        }
    }

    /** A joiner that throws breaks the scope's rules: the scope is decided, and join throws what it threw. */
    private void joinerFailed(Throwable e) {
        lock.lock();
        try {
            if (joinerFailure == null) {
                joinerFailure = e;
            } else {
                joinerFailure.addSuppressed(e);
            }
        } finally {
            lock.unlock();
        }
        decided.set(true);
        cancelAll();
    }

    /** Records {@code inner}, opened in one of this scope's threads, until it closes. */
    private void adopt(Scope inner) {
        lock.lock();
        try {
            openedByForks.add(inner);
            openedByForksCount = openedByForks.size();
        } finally {
            lock.unlock();
        }
    }

    private void disown(Scope inner) {
        lock.lock();
        try {
            openedByForks.remove(inner);
            openedByForksCount = openedByForks.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the scopes the calling thread (a fork of this scope, or a thread spawned in it, whose
     * task has ended) opened and left open, as the thread's end would otherwise leave their threads
     * running; returns the report of what it closed, or null. Costs one volatile read when the
     * thread opened none.
     *
     * @param who what the thread is, for the report ("a subtask", "a thread spawned in it")
     */
    IllegalStateException closeLeftOpen(String who) {
        if (openedByForksCount == 0) {
            return null;
        }
        Thread self = Thread.currentThread();
        List<Scope> left = new ArrayList<>();
        lock.lock();
        try {
            for (Scope inner : openedByForks) {
                if (inner.owner == self) {
                    left.add(inner);
                }
            }
        } finally {
            lock.unlock();
        }
        if (left.isEmpty()) {
            return null;
        }
        List<String> names = new ArrayList<>();
        List<RuntimeException> complaints = new ArrayList<>();
        for (Scope inner : left) {
            names.add(inner.name);
            try {
                inner.close();   // this thread owns it: close cancels what still runs and waits for it
            } catch (RuntimeException e) {
                complaints.add(e);
            }
        }
        IllegalStateException report = new IllegalStateException("scope" + (names.size() > 1 ? "s " : " ")
                + String.join(", ", names) + " opened by " + who + " of scope " + name + " "
                + (names.size() > 1 ? "were" : "was") + " left open when the thread's task ended; weft closed "
                + (names.size() > 1 ? "them" : "it") + " then, cancelling what still ran. Close every scope in the"
                + " thread that opened it, before that thread's task ends (try-with-resources)");
        complaints.forEach(report::addSuppressed);
        return report;
    }

    /** One more subtask ended; wakes the owner if it waits and this was the last. */
    private void ended() {
        long done = completedCount.incrementAndGet();
        if (ownerWaiting && done >= forkCount) {
            lock.lock();
            try {
                idle.signalAll();   // join waits for the forks; close also for spawned threads
            } finally {
                lock.unlock();
            }
        }
    }

    /** True while forked subtasks have not all ended. */
    private boolean forksLive() {
        return completedCount.get() < forkCount;
    }

    /** Marks the scope cancelled, once, and interrupts every live subtask and spawned thread. */
    private void cancelAll() {
        List<Thread> background;
        lock.lock();
        try {
            if (cancelled) {
                return;
            }
            cancelled = true;
            background = List.copyOf(spawned);
        } finally {
            lock.unlock();
        }
        if (ownerWait.get() == WAITING) {
            interrupting.lock();
            try {
                if (ownerWait.compareAndSet(WAITING, INTERRUPTED)) {
                    owner.interrupt();   // end its wait for a permit: nothing more starts in this scope
                }
            } finally {
                interrupting.unlock();
            }
        }
        Thread self = Thread.currentThread();
        int n = (int) forkCount;          // read the count first: the array is at least as new
        Subtask<?>[] a = forked;
        for (int i = 0; i < n; i++) {
            Thread t = a[i].thread;
            if (t != null && t != self) {
                t.interrupt();
            }
        }
        for (Thread t : background) {
            if (t != self) {
                t.interrupt();
            }
        }
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
        if (!cancelled) {
            cancelledByOwner = true;
        }
        cancelAll();
    }

    /** What the timer runs at the deadline: times the scope out unless it already has its outcome. */
    void expire() {
        lock.lock();
        try {
            if (closed || cancelled || decided.get()) {
                return;
            }
            timedOut = true;
        } finally {
            lock.unlock();
        }
        cancelAll();
    }

    /**
     * Waits until every forked thread has ended, then returns or throws the scope's outcome, as
     * its {@link Joiner} says (see there): with {@link Policy#ALL_SUCCEED} returns when every
     * subtask succeeded; with {@link Policy#FIRST_SUCCESS} when one did (find it with
     * {@link Subtask#state()}); with {@link Policy#AWAIT_ALL} when all completed. After
     * {@link #cancel()} with nothing decided it returns normally: the owner discarded the outcome.
     * May be called again after more forks. {@link #join(Joiner)} returns what a joiner of your
     * own gives.
     *
     * @throws Exception             the original exception of the first subtask to fail, with the
     *                               failures of its siblings added as suppressed (all-succeed), or
     *                               when every subtask failed (first-success); what a joiner of
     *                               your own throws
     * @throws TimeoutException      if the deadline passed before the outcome (the unfinished
     *                               subtasks were cancelled)
     * @throws InterruptedException  if the owner was interrupted; the scope was cancelled and every
     *                               thread has ended
     * @throws NoSuchElementException with {@link Policy#FIRST_SUCCESS}, if no subtask was forked
     * @throws WrongThreadException  if the calling thread is not the owner
     * @throws IllegalStateException if the scope is closed
     */
    @Blocking
    public void join() throws Exception {
        outcome();
    }

    /**
     * {@link #join()}, returning the result of {@code joiner}, which must be this scope's (the one
     * given to {@link Builder#joiner}): {@code List<String> firstTwo = scope.join(firstTwoJoiner);}.
     *
     * @throws IllegalArgumentException if {@code joiner} is not this scope's joiner
     */
    @Blocking
    @SuppressWarnings("unchecked")   // checked: it is this scope's joiner, whose result is an R
    public <R> R join(Joiner<R> joiner) throws Exception {
        if (joiner != this.joiner) {
            checkOwner("join");
            throw new IllegalArgumentException("scope " + name + " is decided by " + this.joiner + ", not by " + joiner
                    + "; pass the joiner the scope was opened with, or call join()");
        }
        return (R) outcome();
    }

    private Object outcome() throws Exception {
        checkOwner("join");
        boolean interrupted = false;
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("scope " + name + " is closed; join before close");
            }
            if (Thread.interrupted()) {
                interrupted = true;
                cancelAll();
            }
            ownerWaiting = true;
            while (forksLive()) {
                try {
                    idle.await();
                } catch (InterruptedException e) {
                    interrupted = true;
                    cancelAll();
                }
            }
            ownerWaiting = false;
            forkedSinceJoin = 0;
            if (interrupted) {
                throw new InterruptedException("scope " + name + ": owner " + owner.getName()
                        + " was interrupted while joining; the scope was cancelled and its threads have ended");
            }
        } finally {
            lock.unlock();
        }
        return ScopeEvent.joined(jfr, this::askJoiner);
    }

    /** The outcome, once every fork has ended: the joiner's, unless the deadline or the owner's cancel came first. */
    private Object askJoiner() throws Exception {
        Throwable broken = joinerFailure;
        if (broken != null) {
            throw broken instanceof Exception e ? e : new IllegalStateException("scope " + name + ": its joiner " + joiner
                    + " failed", broken);
        }
        if (!decided.get()) {
            boolean timedOutNow;
            lock.lock();
            try {
                timedOutNow = timedOut;
            } finally {
                lock.unlock();
            }
            if (timedOutNow) {
                try {
                    joiner.onTimeout();
                } catch (TimeoutException e) {
                    TimeoutException t = timeout();
                    if (e.getMessage() != null) {
                        t.initCause(e);
                    }
                    throw t;
                }
            } else if (cancelledByOwner) {
                return null;
            }
        }
        return joiner.result();
    }

    private TimeoutException timeout() {
        return new TimeoutException("scope " + name + ": deadline" + (timeout != null ? " of " + timeout : "")
                + " passed before its outcome; unfinished subtasks were cancelled."
                + " Raise the timeout, or make the subtasks faster");
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
        IllegalStateException innerUnjoined = closeNested();
        boolean interrupted = false;
        boolean unjoined;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            unjoined = forkedSinceJoin > 0 && !cancelled;
            cancelAll();
            ownerWaiting = true;
            while (forksLive() || !spawned.isEmpty()) {
                try {
                    idle.await();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            ownerWaiting = false;
        } finally {
            lock.unlock();
            if (deadlineTask != null) {
                deadlineTask.cancel(false);
            }
            handle.scope = null;
            if (openedIn != null) {
                openedIn.disown(this);
            }
            if (OWNED.get() == this) {
                if (previouslyOwned == null) {
                    OWNED.remove();
                } else {
                    OWNED.set(previouslyOwned);
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        ScopeEvent.closed(jfr, name, policy != null ? policy : joiner, forks, unjoined, cancelled);
        if (unjoined) {
            throw new IllegalStateException("scope " + name + " was closed with subtasks forked after the last join;"
                    + " they were cancelled and their outcomes lost. Join the scope before it closes, or cancel it to"
                    + " discard them (join() / cancel())");
        }
        if (innerUnjoined != null) {
            throw innerUnjoined;
        }
    }

    /** Closes the scopes this thread opened inside this one and left open; returns the first complaint. */
    private IllegalStateException closeNested() {
        IllegalStateException first = null;
        if (!isNestedIn(OWNED.get())) {
            return null;
        }
        for (Scope inner = OWNED.get(); inner != null && inner != this; inner = OWNED.get()) {
            try {
                inner.close();
            } catch (IllegalStateException e) {
                first = first == null ? e : first;
            }
        }
        return first;
    }

    /** True when {@code inner} was opened by this thread while this scope was open (and is not this scope). */
    private boolean isNestedIn(Scope inner) {
        if (inner == null || inner == this) {
            return false;
        }
        for (Scope s = inner.previouslyOwned; s != null; s = s.previouslyOwned) {
            if (s == this) {
                return true;
            }
        }
        return false;
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
        lock.lock();
        try {
            return "Scope[" + name + ", " + joiner + ", " + (forkCount - completedCount.get()) + " running"
                    + (cancelled ? ", cancelled" : "") + (closed ? ", closed" : "") + "]";
        } finally {
            lock.unlock();
        }
    }

    /** Configures a {@link Scope}; {@link #open()} opens it. */
    public static final class Builder {
        private String name = "scope";
        private Policy policy = Policy.ALL_SUCCEED;
        private Joiner<?> joiner;
        private Duration timeout;
        private Instant deadline;
        private int maxConcurrency;
        private Limiter limiter;
        private ThreadFactory threads;

        private Builder() {
        }

        /**
         * The scope's name: its threads are {@code weft-<name>-<n>}. Default "scope".
         *
         * @throws IllegalArgumentException if blank or containing whitespace
         */
        public Builder name(String name) {
            this.name = WeftThreads.checkName(name);
            return this;
        }

        /** The policy; each scope opened gets a new joiner of it. Default {@link Policy#ALL_SUCCEED}. Replaces a {@link #joiner}. */
        public Builder policy(Policy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            this.joiner = null;
            return this;
        }

        /**
         * A joiner of your own that decides the outcome (see {@link Joiner}); {@link Scope#join(Joiner)}
         * returns its result. A joiner serves one scope: give a new one before opening this builder
         * again. Replaces a {@link #policy}.
         */
        public Builder joiner(Joiner<?> joiner) {
            this.joiner = Objects.requireNonNull(joiner, "joiner");
            this.policy = Policy.ALL_SUCCEED;
            return this;
        }

        /**
         * Cancels the scope {@code timeout} after it opens, if it has not its outcome by then.
         * The time counts from each {@link #open()}, so a builder may be kept and opened again.
         * Replaces a {@link #deadline}.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("scope " + name + ": timeout must not be negative; got " + timeout);
            }
            this.timeout = timeout;
            this.deadline = null;
            return this;
        }

        /**
         * Cancels the scope at {@code deadline} (wall clock), if it has not its outcome by then; a
         * deadline already past when the scope opens cancels it at once. Replaces a
         * {@link #timeout}.
         */
        public Builder deadline(Instant deadline) {
            this.deadline = Objects.requireNonNull(deadline, "deadline");
            this.timeout = null;
            return this;
        }

        /**
         * At most {@code n} subtasks run at once; {@code fork} waits in the owner for one to end.
         * Default: no cap. Replaces a {@link #limiter}.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder maxConcurrency(int n) {
            if (n <= 0) {
                throw new IllegalArgumentException("scope " + name + ": maxConcurrency must be positive; got " + n
                        + " (leave it unset for no cap)");
            }
            this.maxConcurrency = n;
            this.limiter = null;
            return this;
        }

        /**
         * Subtasks run holding a permit of {@code limiter}, which other scopes and code may share;
         * {@code fork} takes the permit in the owner, by the limiter's rules (a bounded limiter may
         * reject the fork). Replaces a {@link #maxConcurrency}.
         */
        public Builder limiter(Limiter limiter) {
            this.limiter = Objects.requireNonNull(limiter, "limiter");
            this.maxConcurrency = 0;
            return this;
        }

        /**
         * Starts the scope's threads with {@code threads} instead of named virtual threads: for
         * tests of what happens when a thread cannot be started.
         */
        Builder threads(ThreadFactory threads) {
            this.threads = Objects.requireNonNull(threads, "threads");
            return this;
        }

        /** Opens the scope, owned by the calling thread, which it becomes the current scope of. */
        public Scope open() {
            return new Scope(this);
        }
    }

    /**
     * What a snapshot holds for "the current scope": the scope while it is open, emptied when it
     * closes, and the handle of the scope it was opened in.
     */
    private static final class Handle {
        volatile Scope scope;
        final Handle parent;

        Handle(Scope scope, Handle parent) {
            this.scope = scope;
            this.parent = parent;
        }

        @Override
        public String toString() {
            Scope s = scope;
            return s == null ? "closed scope" : s.toString();
        }
    }
}
