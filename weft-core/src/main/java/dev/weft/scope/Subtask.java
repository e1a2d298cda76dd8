package dev.weft.scope;

import dev.weft.limit.Limiter;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.jetbrains.annotations.Blocking;

/**
 * A task forked in a {@link Scope}: its state and, once the scope has joined, its outcome.
 *
 * <p>A subtask is {@link State#RUNNING} until it completes. It is {@link State#SUCCESS} or
 * {@link State#FAILED} when it completed while the scope was still open for outcomes, and
 * {@link State#CANCELLED} when the scope was decided or cancelled first (a failure under
 * {@link Joiner#awaitAllSuccessfulOrThrow()}, a winner under {@link Joiner#anySuccessfulResultOrThrow()}, a deadline,
 * {@link Scope#cancel()}, an interrupted owner, or {@link Scope#close()}): the result of a
 * cancelled subtask is discarded, never handed out, even if its code returned one.
 *
 * <p>Memory consistency effects: actions in the subtask happen-before the owner's return from
 * {@link Scope#join()}, and so before {@link #get()} reads its result; they happen-before
 * {@link #await} returns a state other than {@link State#RUNNING}, too.
 *
 * @param <T> the result type
 */
public final class Subtask<T> implements Supplier<T> {

    /** Where a subtask is. */
    public enum State {
        /** Forked and not yet completed. */
        RUNNING,
        /** Completed with a result, which {@link #get()} returns. */
        SUCCESS,
        /** Completed with an exception, which {@link #exception()} returns. */
        FAILED,
        /** Cancelled by its scope before it completed, or never started because the scope was already cancelled. */
        CANCELLED
    }

    private final Scope scope;
    // Let go once the task ran (or never will): a subtask kept for its result must not keep
    // what the task's code captured.
    private Callable<? extends T> task;
    private Limiter.Permit permit;
    private volatile State state = State.RUNNING;
    private T result;
    private Throwable exception;
    // The outcome the completing thread proposes while the joiner looks at it: shown to that
    // thread only, until the scope accepts it (or discards it: CANCELLED).
    private State proposed;
    private Thread proposer;
    // Written by the owner before it publishes the subtask (a volatile count, which cancellers
    // read first); cleared when the subtask ends, where a stale read only interrupts a thread
    // that has finished its task.
    Thread thread;

    private final long id;

    Subtask(Scope scope, Callable<? extends T> task, Limiter.Permit permit, long id) {
        this.scope = scope;
        this.task = task;
        this.permit = permit;
        this.id = id;
    }

    /**
     * The subtask's state now. In {@link Joiner#onComplete}, the completing thread sees the outcome
     * the joiner is asked about; other threads see it once the scope accepted it.
     */
    public State state() {
        State s = state;
        return s == State.RUNNING && proposer == Thread.currentThread() ? proposed : s;
    }

    /**
     * The subtask's result.
     *
     * @throws IllegalStateException unless the subtask is {@link State#SUCCESS}, naming its state
     */
    @Override
    public T get() {
        State s = state();
        if (s != State.SUCCESS) {
            throw new IllegalStateException(
                    "subtask of scope " + scope.name() + " is " + s + ", so it has no result" + advice(s));
        }
        return result;
    }

    /**
     * The exception the subtask failed with.
     *
     * @throws IllegalStateException unless the subtask is {@link State#FAILED}, naming its state
     */
    public Throwable exception() {
        State s = state();
        if (s != State.FAILED) {
            throw new IllegalStateException(
                    "subtask of scope " + scope.name() + " is " + s + ", so it has no exception" + advice(s));
        }
        return exception;
    }

    /**
     * Waits at most {@code timeout} for the subtask to complete, and returns its state then:
     * {@link State#RUNNING} if it has not. Any thread may wait. Waiting does not join the scope:
     * the scope's outcome is still {@link Scope#join()}'s, and the owner must still join.
     *
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code timeout} is null
     */
    @Blocking
    public State await(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        State s = state;
        if (s != State.RUNNING) {
            return s;
        }
        // The subtask completes in its own thread, just before that thread ends: waiting for the
        // thread needs no latch on the fork path. A null thread has completed already.
        Thread t = thread;
        if (t != null && !timeout.isNegative() && !timeout.isZero()) {
            t.join(timeout);
        }
        return state;
    }

    private static String advice(State s) {
        return switch (s) {
            case RUNNING -> "; call scope.join() first";
            case CANCELLED -> "; its scope was cancelled before it completed";
            default -> "; check state() first";
        };
    }

    /** Runs the task in the forked thread; called once. */
    void run() {
        T value = null;
        Throwable failure = null;
        try {
            if (!scope.isCancelled()) {
                value = task.call();
            }
        } catch (Throwable t) {
            failure = t;
        }
        try {
            // No scope outlives the thread that opened it: what the task left open closes now, and
            // the subtask fails with the report (or carries it, when it failed already).
            IllegalStateException leftOpen = scope.tree.closeLeftOpen("a subtask");
            if (leftOpen != null) {
                if (failure == null) {
                    failure = leftOpen;
                    value = null;
                } else {
                    failure.addSuppressed(leftOpen);
                }
            }
        } finally {
            release();
        }
        scope.completed(this, value, failure);
    }

    /** Gives back the permit and lets go of the task: it has run, or never will. Called once. */
    void release() {
        task = null;
        Limiter.Permit p = permit;
        permit = null;
        if (p != null) {
            p.close();
        }
    }

    /**
     * Records the outcome, once: called by the subtask's own thread when its task ended (on the
     * failure path under the scope's lock, which orders failures), or by the owner when the
     * thread could not be started.
     */
    void complete(State s, T value, Throwable failure) {
        result = value;
        exception = failure;
        state = s;
    }

    /** Shows {@code s} (with its value or failure) to the calling thread only, for the joiner to look at. */
    void propose(State s, T value, Throwable failure) {
        result = value;
        exception = failure;
        proposed = s;
        proposer = Thread.currentThread();
    }

    /** Publishes the proposed outcome: the scope accepted it. */
    void accept() {
        state = proposed;
        proposer = null;
    }

    /** Marks a subtask that never started (the scope was cancelled); gives back its permit. */
    void cancelUnstarted() {
        release();
        state = State.CANCELLED;
    }

    @Override
    public String toString() {
        return "Subtask[" + scope.name() + " #" + id + ": " + state + "]";
    }
}
