package dev.weft.scope;

import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck's model checker over the thread-free core of a scope: {@link ScopeState} (the first
 * cause wins; close) and {@link Flock} (publish, re-check, sweep), driven as {@code fork},
 * {@code cancel}, the deadline, a deciding completion and {@code close} drive them, without
 * starting threads. Each subtask's thread is an unstarted Thread, whose interrupt flag records
 * the sweep. The checker explores the interleavings of the owner's operations (one thread at a
 * time: they are the owner's) with cancellers on other threads, and checks that the results are
 * linearizable (each operation as if atomic: one cause wins, a fork starts only in an open scope)
 * and, after each run, that no started subtask of a cancelled scope escaped the sweep.
 *
 * <p>Part of the model tier (build/test/model.sh, doc/testing.md), not of the unit tests.
 */
public class ScopeCoreLincheckTest {

    private static final int MAX_FORKS = 4;

    private final ScopeState state = new ScopeState();
    private final Flock flock = new Flock();
    private final List<Subtask<?>> started = new ArrayList<>(); // owner only
    private final Thread[] threads = new Thread[MAX_FORKS];
    private int forks; // owner only

    public ScopeCoreLincheckTest() {
        for (int i = 0; i < MAX_FORKS; i++) {
            threads[i] = new Thread(() -> {}, "model-subtask-" + i); // never started
        }
    }

    /** The owner forks: what {@code Scope.fork} does after its permit, minus starting the thread. */
    @Operation(nonParallelGroup = "owner")
    public String fork() {
        if (state.isClosed()) {
            return "refused: closed";
        }
        if (forks == MAX_FORKS || state.isCancelled()) {
            return "not started";
        }
        Subtask<Object> subtask = new Subtask<>(null, () -> null, null, forks);
        if (!flock.publish(subtask, threads[forks++], state)) {
            return "not started";
        }
        started.add(subtask);
        return "started";
    }

    /** The owner's {@code cancel()}. */
    @Operation(nonParallelGroup = "owner")
    public boolean cancel() {
        return cancel(ScopeState.DISCARDED);
    }

    /** The deadline, on the timer's thread. */
    @Operation
    public boolean expire() {
        return cancel(ScopeState.TIMED_OUT);
    }

    /** A completion that decides the scope, on a subtask's thread. */
    @Operation
    public boolean decide() {
        return cancel(ScopeState.DECIDED);
    }

    /** The owner's {@code close()}, up to its wait: the state it found. */
    @Operation(nonParallelGroup = "owner")
    public String close() {
        int before = state.close();
        if (before == ScopeState.OPEN) {
            flock.interruptAll();
        }
        return ScopeState.name(before);
    }

    /**
     * Subtasks counted and not ended, as the owner's join sees them. (Only the owner's view is
     * atomic: another thread may see a subtask counted while a fork withdraws it after losing the
     * re-check, a transient the model checker found; only toString reads the count elsewhere.)
     */
    @Operation(nonParallelGroup = "owner")
    public long running() {
        return flock.running();
    }

    private boolean cancel(int cause) {
        if (!state.cancel(cause)) {
            return false;
        }
        flock.interruptAll();
        return true;
    }

    /** After each run: in a cancelled scope every started subtask was interrupted; the count is the starts. */
    @Validate
    public void noStartedSubtaskEscapesTheSweep() {
        if (state.isCancelled()) {
            for (Subtask<?> s : started) {
                if (!s.thread.isInterrupted()) {
                    throw new AssertionError(
                            "a subtask started in a scope that is " + state + ", and no sweep interrupted it");
                }
            }
        }
        if (flock.running() != started.size()) {
            throw new AssertionError(flock.running() + " running, but " + started.size() + " started");
        }
    }

    @Test
    void modelCheck() {
        new ModelCheckingOptions()
                .iterations(Integer.getInteger("weft.model.iterations", 30))
                .invocationsPerIteration(Integer.getInteger("weft.model.invocations", 1_000))
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(0) // an operation before the parallel part would mostly settle the scope early
                .actorsAfter(1)
                .check(ScopeCoreLincheckTest.class);
    }
}
