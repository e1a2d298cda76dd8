package dev.weft.scope;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeoutException;

/**
 * A scope's policy as an object: what it does when a subtask is forked and when one completes,
 * and what {@link Scope#join()} returns or throws. The shape of the JDK's
 * {@code StructuredTaskScope.Joiner} (JDK 25/26), so that moving to it later is mechanical.
 *
 * <p>One joiner serves one scope: give a new one to each {@link Scope#open(Joiner)} or
 * {@link Scope.Builder#joiner}. weft's own, with the JDK's names: {@link #awaitAllSuccessfulOrThrow()}
 * (the default), {@link #allSuccessfulOrThrow()}, {@link #anySuccessfulResultOrThrow()} and
 * {@link #awaitAll()}; write your own for another outcome (the first k results, whatever
 * completed by a deadline, ...). (The deprecated {@link Scope.Policy} constants make the first,
 * a first-success joiner that returns null, and the last.)
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
    default void onFailureAfterCancel(Throwable failure) {}

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
     * Every subtask must succeed, and join returns their results, in fork order: the first failure
     * decides the scope (the others are cancelled) and join throws that original exception with
     * the failures of the siblings that failed on their own added as suppressed. The JDK's
     * {@code Joiner.allSuccessfulOrThrow()}, returning the results as a list.
     *
     * <pre>{@code
     * Joiner<List<Page>> all = Joiner.allSuccessfulOrThrow();
     * try (Scope scope = Scope.open(all)) {
     *     urls.forEach(u -> scope.fork(() -> fetch(u)));
     *     List<Page> pages = scope.join(all);
     * }
     * }</pre>
     *
     * @param <T> what the subtasks return
     */
    static <T> Joiner<List<T>> allSuccessfulOrThrow() {
        return new Joiners.AllSucceed<>(true, "allSuccessfulOrThrow");
    }

    /**
     * Every subtask must succeed, and join returns null: the first failure decides the scope (the
     * others are cancelled) and join throws that original exception with the failures of the
     * siblings that failed on their own added as suppressed. The default of every scope
     * ({@link Scope#open()}); the JDK's {@code Joiner.awaitAllSuccessfulOrThrow()}.
     */
    static Joiner<Void> awaitAllSuccessfulOrThrow() {
        return Joiners.allSucceedNoResults("awaitAllSuccessfulOrThrow");
    }

    /**
     * The first subtask to succeed decides the scope (it is the one {@link Subtask.State#SUCCESS})
     * and join returns its result; the rest are cancelled. Join throws the first failure (the
     * others suppressed) when every subtask failed, or {@link NoSuchElementException} when no
     * subtask was forked. The JDK's {@code Joiner.anySuccessfulResultOrThrow()}.
     *
     * @param <T> what the subtasks return
     */
    static <T> Joiner<T> anySuccessfulResultOrThrow() {
        return new Joiners.FirstSuccess<>(true, "anySuccessfulResultOrThrow");
    }

    /**
     * Waits for every subtask whatever its outcome; join returns null and throws no subtask's
     * exception: each {@link Subtask} has its own outcome. The JDK's {@code Joiner.awaitAll()}.
     */
    static Joiner<Void> awaitAll() {
        return new Joiners.AwaitAll();
    }

    /**
     * {@link #awaitAllSuccessfulOrThrow()} under its former name.
     *
     * @deprecated use {@link #awaitAllSuccessfulOrThrow()}, or {@link #allSuccessfulOrThrow()} for
     *             the results; removed in the next release
     */
    @Deprecated(since = "0.1.0")
    static Joiner<Void> allSucceed() {
        return Joiners.allSucceedNoResults("allSucceed");
    }

    /**
     * {@link #anySuccessfulResultOrThrow()}, with join returning null rather than the result.
     *
     * @deprecated use {@link #anySuccessfulResultOrThrow()}; removed in the next release
     */
    @Deprecated(since = "0.1.0")
    static Joiner<Void> firstSuccess() {
        return new Joiners.FirstSuccess<>(false, "firstSuccess");
    }
}
