package dev.weft.scope;

import java.util.NoSuchElementException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/** The joiners of the three {@link Scope.Policy policies}; see the factories of {@link Joiner}. */
final class Joiners {

    private Joiners() {
    }

    /**
     * A policy's joiner: it serves one scope, whose name its messages carry; opening a second
     * scope with it is an error.
     */
    abstract static class Builtin implements Joiner<Void> {
        private volatile Scope scope;

        /** Ties this joiner to {@code s}; called once, when {@code s} opens. */
        final void bind(Scope s) {
            if (scope != null) {
                throw new IllegalStateException(this + " joiner already serves scope " + scope.name()
                        + "; a joiner serves one scope: get a new one from Joiner." + factory() + "() for each scope");
            }
            scope = s;
        }

        final String scopeName() {
            Scope s = scope;
            return s == null ? "(unopened)" : s.name();
        }

        abstract String factory();
    }

    /** A failure and the subtask it came from (null after the scope was cancelled). */
    private record Failure(Subtask<?> subtask, Throwable failure) {
    }

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

    static final class AllSucceed extends Builtin {
        private final Queue<Failure> failures = new ConcurrentLinkedQueue<>();

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
        public Void result() throws Exception {
            for (Failure f : failures) {
                if (f.subtask != null && f.subtask.state() == Subtask.State.FAILED) {
                    throw withSuppressed(f.failure, failures);
                }
            }
            return null;
        }

        @Override
        String factory() {
            return "allSucceed";
        }

        @Override
        public String toString() {
            return "ALL_SUCCEED";
        }
    }

    static final class FirstSuccess extends Builtin {
        private final Queue<Failure> failures = new ConcurrentLinkedQueue<>();
        private final Queue<Subtask<?>> successes = new ConcurrentLinkedQueue<>();
        private long forks;   // owner only

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
        public Void result() throws Exception {
            for (Subtask<?> s : successes) {
                if (s.state() == Subtask.State.SUCCESS) {
                    return null;
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

        @Override
        String factory() {
            return "firstSuccess";
        }

        @Override
        public String toString() {
            return "FIRST_SUCCESS";
        }
    }

    static final class AwaitAll extends Builtin {
        @Override
        public Void result() {
            return null;
        }

        @Override
        String factory() {
            return "awaitAll";
        }

        @Override
        public String toString() {
            return "AWAIT_ALL";
        }
    }
}
