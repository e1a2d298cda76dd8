package dev.weft.scope;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * weft's own joiners, made by the factories of {@link Joiner} (the JDK's names): all must succeed
 * ({@link AllSucceed}, with or without the results), the first success wins
 * ({@link FirstSuccess}, with or without its result), and await all ({@link AwaitAll}). The
 * deprecated {@link Scope.Policy} constants make the ones without results.
 */
final class Joiners {

    private Joiners() {}

    /**
     * A policy's joiner: it serves one scope, whose name its messages carry; opening a second
     * scope with it is an error.
     */
    abstract static class Builtin<R> implements Joiner<R> {
        private volatile Scope scope;
        private final String factory;
        private final String label;

        /** {@code factory}: the Joiner method that makes it, for messages; {@code label}: its toString (JFR's "policy"). */
        Builtin(String factory, String label) {
            this.factory = factory;
            this.label = label;
        }

        /** Ties this joiner to {@code s}; called once, when {@code s} opens. */
        final void bind(Scope s) {
            if (scope != null) {
                throw new IllegalStateException(this + " joiner already serves scope " + scope.name()
                        + "; a joiner serves one scope: get a new one from Joiner." + factory + "() for each scope");
            }
            scope = s;
        }

        final String scopeName() {
            Scope s = scope;
            return s == null ? "(unopened)" : s.name();
        }

        @Override
        public final String toString() {
            return label;
        }
    }

    /** All must succeed, join returning null: an AllSucceed whose List is never made. */
    @SuppressWarnings("unchecked") // result() returns null when it collects nothing: no List is ever seen as Void
    static Joiner<Void> allSucceedNoResults(String factory) {
        return (Joiner<Void>) (Joiner<?>) new AllSucceed<>(false, factory);
    }

    /** A new joiner of {@code policy}: its constants make the joiners that return null. */
    @SuppressWarnings("deprecation") // Scope.Policy: kept as an alias of the factories
    static Joiner<Void> ofPolicy(Scope.Policy policy) {
        return switch (policy) {
            case ALL_SUCCEED -> allSucceedNoResults("awaitAllSuccessfulOrThrow");
            case FIRST_SUCCESS -> new FirstSuccess<>(false, "anySuccessfulResultOrThrow");
            case AWAIT_ALL -> new AwaitAll();
        };
    }

    /** A failure and the subtask it came from (null after the scope was cancelled). */
    private record Failure(Subtask<?> subtask, Throwable failure) {}

    /** Throws {@code first}'s exception with every other failure in {@code all} suppressed (each once). */
    static Exception withSuppressed(Throwable first, Queue<Failure> all) {
        for (Failure f : all) {
            if (f.failure != first) {
                first.addSuppressed(f.failure);
            }
        }
        all.clear();
        if (first instanceof Exception e) {
            return e;
        }
        if (first instanceof Error e) {
            throw e;
        }
        return new RuntimeException(first);
    }

    /** Every subtask must succeed; with {@code results}, join returns their results in fork order, else null. */
    static final class AllSucceed<T> extends Builtin<List<T>> {
        private final Queue<Failure> failures = new ConcurrentLinkedQueue<>();
        private final List<Subtask<?>> forked; // owner only; null unless join returns the results

        AllSucceed(boolean results, String factory) {
            super(factory, results ? "ALL_SUCCESSFUL" : "ALL_SUCCEED");
            this.forked = results ? new ArrayList<>() : null;
        }

        @Override
        public boolean onFork(Subtask<?> subtask) {
            if (forked != null) {
                forked.add(subtask);
            }
            return false;
        }

        @Override
        public boolean onComplete(Subtask<?> subtask) {
            if (subtask.state() != Subtask.State.FAILED) {
                return false;
            }
            failures.add(new Failure(subtask, subtask.exception()));
            return true;
        }

        @Override
        public void onFailureAfterCancel(Throwable failure) {
            failures.add(new Failure(null, failure));
        }

        /** Throws the failure that decided the scope (its subtask is the FAILED one), the others suppressed. */
        @Override
        @SuppressWarnings("unchecked") // the caller's T: what its tasks return
        public List<T> result() throws Exception {
            for (Failure f : failures) {
                if (f.subtask != null && f.subtask.state() == Subtask.State.FAILED) {
                    throw withSuppressed(f.failure, failures);
                }
            }
            if (forked == null) {
                return null;
            }
            List<T> results = new ArrayList<>(forked.size());
            for (Subtask<?> s : forked) {
                results.add((T) s.get());
            }
            return results;
        }
    }

    /** The first subtask to succeed wins; with {@code result}, join returns its result, else null. */
    static final class FirstSuccess<T> extends Builtin<T> {
        private final Queue<Failure> failures = new ConcurrentLinkedQueue<>();
        private final Queue<Subtask<?>> successes = new ConcurrentLinkedQueue<>();
        private final boolean returnsResult;
        private long forks; // owner only

        FirstSuccess(boolean result, String factory) {
            super(factory, result ? "ANY_SUCCESSFUL" : "FIRST_SUCCESS");
            this.returnsResult = result;
        }

        @Override
        public boolean onFork(Subtask<?> subtask) {
            forks++;
            return false;
        }

        /** Every success asks to decide: the scope lets exactly one do so. */
        @Override
        public boolean onComplete(Subtask<?> subtask) {
            if (subtask.state() == Subtask.State.SUCCESS) {
                successes.add(subtask);
                return true;
            }
            failures.add(new Failure(subtask, subtask.exception()));
            return false;
        }

        @Override
        @SuppressWarnings("unchecked") // the caller's T: what its tasks return
        public T result() throws Exception {
            for (Subtask<?> s : successes) {
                if (s.state() == Subtask.State.SUCCESS) {
                    return returnsResult ? (T) s.get() : null;
                }
            }
            Failure first = failures.peek();
            if (first != null) {
                throw withSuppressed(first.failure, failures);
            }
            if (forks == 0) {
                throw new NoSuchElementException("scope " + scopeName() + ": first-success policy, but no subtask"
                        + " was forked; fork at least one before join");
            }
            return null;
        }
    }

    /** Waits for every subtask whatever its outcome; join returns null. */
    static final class AwaitAll extends Builtin<Void> {
        AwaitAll() {
            super("awaitAll", "AWAIT_ALL");
        }

        @Override
        public Void result() {
            return null;
        }
    }
}
