package dev.weft.scope;

import java.util.NoSuchElementException;
import java.util.concurrent.TimeoutException;

/**
 * A scope's policy as an object: what it does when a subtask is forked and when one completes,
 * and what {@link Scope#join()} returns or throws. The shape of the JDK's
 * {@code StructuredTaskScope.Joiner} (JDK 25/26), so that moving to it later is mechanical.
 *
 * <p>One joiner serves one scope: give a new one to each {@link Scope.Builder#joiner}, or
 * pick a {@link Scope.Policy}, which makes a new joiner for every scope it opens. The three
 * policies are {@link #allSucceed()}, {@link #firstSuccess()} and {@link #awaitAll()}; write
 * your own for another outcome (the first k results, whatever completed by a deadline, ...).
 *
 * <p><b>Deciding.</b> {@link #onComplete} returning true <em>decides</em> the scope: it is
 * cancelled, and the subtasks still running are interrupted. A scope is decided once: when
 * several completions ask at the same time, the scope picks one; the others, and every subtask
 * that completes after the scope was decided or cancelled, become {@link Subtask.State#CANCELLED},
 * so their results are never handed out (their failures reach {@link #onFailureAfterCancel}).
 * That is why a first-success scope has exactly one {@link Subtask.State#SUCCESS}.
 *
 * <p><b>What join returns.</b> Once every subtask has ended, {@link Scope#join()} asks the
 * joiner: {@link #result()} when the scope was decided or when it ended undisturbed;
 * {@link #onTimeout()} first when its deadline passed before it was decided (the default throws
 * {@link TimeoutException}; a joiner that returns normally lets join return {@code result()}:
 * partial results at a deadline). When the owner cancelled the scope itself with
 * {@link Scope#cancel()} and nothing decided it, join returns without asking: the owner
 * discarded the outcome.
 *
 * <p><b>Threads.</b> {@link #onFork} runs in the owner; {@link #onComplete} and
 * {@link #onFailureAfterCancel} run in the completing subtask's thread, so several may run at
 * once: a joiner must be thread-safe. During {@code onComplete} the subtask shows its outcome
 * ({@link Subtask#state()}, {@link Subtask#get()}, {@link Subtask#exception()}) to the calling
 * thread; other threads see it once the scope has accepted it. {@link #result()} and
 * {@link #onTimeout()} run in the owner after every subtask thread has ended, and see everything
 * the other methods did.
 *
 * @param <R> what {@link Scope#join(Joiner)} returns
 */
public interface Joiner<R> {

    /**
     * Called in the owner when {@code subtask} is forked, before its thread starts (its state is
     * {@link Subtask.State#RUNNING}). Returning true decides the scope before the subtask starts
     * (it is then cancelled). Default: false.
     */
    default boolean onFork(Subtask<?> subtask) {
        return false;
    }

    /**
     * Called in {@code subtask}'s thread when it completed ({@link Subtask.State#SUCCESS} or
     * {@link Subtask.State#FAILED}) while the scope was neither decided nor cancelled. Returning
     * true decides the scope (see the class comment). Default: false.
     */
    default boolean onComplete(Subtask<?> subtask) {
        return false;
    }

    /**
     * Called in a subtask's thread when it failed on its own (not with
     * {@link InterruptedException}) after the scope was decided or cancelled: the subtask is
     * {@link Subtask.State#CANCELLED}, and this is where its exception can still be seen. Default:
     * ignore it.
     */
    default void onFailureAfterCancel(Throwable failure) {
    }

    /**
     * Called by {@link Scope#join()} when the scope's deadline passed before it was decided.
     * Throw {@link TimeoutException} (the default; join then throws the scope's own
     * TimeoutException, which names the scope and its deadline) or return, and join returns
     * {@link #result()}.
     *
     * @throws TimeoutException to make join throw TimeoutException
     */
    default void onTimeout() throws TimeoutException {
        throw new TimeoutException();
    }

    /**
     * The scope's outcome, called by {@link Scope#join()} once every subtask has ended: return
     * what join returns, or throw what it throws.
     *
     * @throws Exception the outcome, when it is a failure
     */
    R result() throws Exception;

    /**
     * Every subtask must succeed: the first failure decides the scope, and join throws that
     * original exception with the failures of the siblings that failed on their own added as
     * suppressed. Join returns null when every subtask succeeded.
     */
    static Joiner<Void> allSucceed() {
        return new Joiners.AllSucceed();
    }

    /**
     * The first subtask to succeed decides the scope (it is the one {@link Subtask.State#SUCCESS});
     * the rest are cancelled. Join returns null once one succeeded, and throws the first failure
     * (the others suppressed) when every subtask failed, or {@link NoSuchElementException} when no
     * subtask was forked.
     */
    static Joiner<Void> firstSuccess() {
        return new Joiners.FirstSuccess();
    }

    /**
     * Waits for every subtask whatever its outcome; join returns null and throws no subtask's
     * exception: each {@link Subtask} has its own outcome.
     */
    static Joiner<Void> awaitAll() {
        return new Joiners.AwaitAll();
    }
}
