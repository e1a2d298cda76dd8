package dev.weft.scope;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where a scope's {@link Joiner} meets its state: the joiner is asked at each fork and
 * completion whether the scope is decided, and at join what the outcome is.
 *
 * <p>Protocol and invariants:
 *
 * <ul>
 *   <li>The joiner sees a completion only while the scope is OPEN. It may ask to decide; the
 *       first ask wins the state's compare-and-set (OPEN to DECIDED), and that completion's
 *       subtask is accepted (shown to everyone) before the sweep interrupts the others. So a
 *       first-success scope has exactly one SUCCESS.
 *   <li>A completion that finds the scope settled, or asked too late, or was looked at while
 *       another settled it, becomes CANCELLED: no result of a loser or of a cancelled scope is
 *       ever handed out. Its own failure (not the interrupt of the cancellation) still reaches
 *       {@link Joiner#onFailureAfterCancel} unless the joiner saw it already.
 *   <li>A joiner that throws breaks the rules: the scope is decided, and join throws what it
 *       threw first (later throws suppressed in it).
 *   <li>Join asks only once every subtask has ended: the joiner's failure first; then the cause
 *       that settled the state: DISCARDED returns null unasked, TIMED_OUT asks
 *       {@link Joiner#onTimeout} before {@link Joiner#result}, any other asks {@code result}.
 * </ul>
 */
final class Outcome {

    private final Joiner<?> joiner;
    private final ScopeState state;
    private final Runnable sweep;
    private final AtomicReference<Throwable> joinerFailure = new AtomicReference<>();

    /** {@code sweep}: the scope's interrupt sweep, run by whoever decides the scope. */
    Outcome(Joiner<?> joiner, ScopeState state, Runnable sweep) {
        this.joiner = joiner;
        this.state = state;
        this.sweep = sweep;
    }

    /** In the owner, before {@code subtask} starts: the joiner may decide the scope with the fork. */
    void forked(Subtask<?> subtask) {
        if (joiner.onFork(subtask) && state.cancel(ScopeState.DECIDED)) {
            sweep.run();
        }
    }

    /** In the subtask's thread: the joiner looks at the completion while the scope is open (see the class comment). */
    <T> void completed(Subtask<T> subtask, T value, Throwable failure) {
        if (state.isCancelled()) {
            discard(subtask, failure, true);
            return;
        }
        subtask.propose(failure == null ? Subtask.State.SUCCESS : Subtask.State.FAILED, value, failure);
        boolean asks;
        try {
            asks = joiner.onComplete(subtask);
        } catch (Throwable e) {
            joinerFailed(e);
            asks = true;
        }
        if (asks ? state.cancel(ScopeState.DECIDED) : !state.isCancelled()) {
            subtask.accept(); // shown to everyone before the sweep wakes the others
            if (asks) {
                sweep.run();
            }
        } else {
            discard(subtask, failure, false);
        }
    }

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

    private void joinerFailed(Throwable e) {
        if (!joinerFailure.compareAndSet(null, e)) {
            joinerFailure.get().addSuppressed(e);
        }
        if (state.cancel(ScopeState.DECIDED)) {
            sweep.run();
        }
    }

    /**
     * In the owner, once every subtask has ended: what join returns or throws.
     *
     * @param scope   the scope's name, for messages
     * @param timeout its timeout, if it was given one (a deadline has none)
     */
    Object result(String scope, Duration timeout) throws Exception {
        Throwable broken = joinerFailure.get();
        if (broken != null) {
            throw broken instanceof Exception e
                    ? e
                    : new IllegalStateException("scope " + scope + ": its joiner " + joiner + " failed", broken);
        }
        int cause = state.cause();
        if (cause == ScopeState.DISCARDED) {
            return null; // the owner cancelled first: it discarded the outcome
        }
        if (cause == ScopeState.TIMED_OUT) {
            try {
                joiner.onTimeout();
            } catch (TimeoutException e) {
                TimeoutException t = new TimeoutException("scope " + scope + ": deadline"
                        + (timeout != null ? " of " + timeout : "") + " passed before its outcome; unfinished"
                        + " subtasks were cancelled. Raise the timeout, or make the subtasks faster");
                if (e.getMessage() != null) {
                    t.initCause(e);
                }
                throw t;
            }
        }
        return joiner.result();
    }
}
