package dev.weft.scope;

import dev.weft.limit.Limiter;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * A task forked in a {@link Scope}: its state and, once the scope has joined, its outcome.
 *
 * <p>A subtask is {@link State#RUNNING} until it completes. It is {@link State#SUCCESS} or
 * {@link State#FAILED} when it completed while the scope was still open for outcomes, and
 * {@link State#CANCELLED} when the scope was cancelled first (a failure under
 * {@link Scope.Policy#ALL_SUCCEED}, a winner under {@link Scope.Policy#FIRST_SUCCESS}, a deadline,
 * {@link Scope#cancel()}, an interrupted owner, or {@link Scope#close()}): the result of a
 * cancelled subtask is discarded, never handed out, even if its code returned one.
 *
 * <p>Memory consistency effects: actions in the subtask happen-before the owner's return from
 * {@link Scope#join()}, and so before {@link #get()} reads its result.
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
    private final Callable<? extends T> task;
    private Limiter.Permit permit;
    private volatile State state = State.RUNNING;
    private T result;
    private Throwable exception;
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

    /** The subtask's state now. */
    public State state() {
        return state;
    }

    /**
     * The subtask's result.
     *
     * @throws IllegalStateException unless the subtask is {@link State#SUCCESS}, naming its state
     */
    @Override
    public T get() {
        State s = state;
        if (s != State.SUCCESS) {
            throw new IllegalStateException("subtask of scope " + scope.name() + " is " + s
                    + ", so it has no result" + advice(s));
        }
        return result;
    }

    /**
     * The exception the subtask failed with.
     *
     * @throws IllegalStateException unless the subtask is {@link State#FAILED}, naming its state
     */
    public Throwable exception() {
        State s = state;
        if (s != State.FAILED) {
            throw new IllegalStateException("subtask of scope " + scope.name() + " is " + s
                    + ", so it has no exception" + advice(s));
        }
        return exception;
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
        } finally {
            Limiter.Permit p = permit;
            permit = null;
            if (p != null) {
                p.close();
            }
        }
        scope.completed(this, value, failure);
    }

    /** Records the outcome; called by the scope under its lock. */
    void complete(State s, T value, Throwable failure) {
        result = value;
        exception = failure;
        state = s;
    }

    /** Marks a subtask that never started (the scope was cancelled); gives back its permit. */
    void cancelUnstarted() {
        Limiter.Permit p = permit;
        permit = null;
        if (p != null) {
            p.close();
        }
        state = State.CANCELLED;
    }

    @Override
    public String toString() {
        return "Subtask[" + scope.name() + " #" + id + ": " + state + "]";
    }
}
