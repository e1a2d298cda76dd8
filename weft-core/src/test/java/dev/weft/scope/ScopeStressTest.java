package dev.weft.scope;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.StressSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Scopes under randomized interleavings, for as long as the stress tier gives
 * ({@code -Dweft.stress.seconds}). Runs only in the stress tier (build/test/stress.sh).
 *
 * <p>Lincheck (org.jetbrains.lincheck 3.7) was tried first and did not run here: on JDK 25 its
 * stress mode made no progress in four minutes on a Limiter test with four operations (see
 * doc/testing.md). These tests are hand-rolled randomized interleavings instead.
 */
class ScopeStressTest {

    /** Tasks that are running now, per tree; a scope's close must leave none of its own. */
    static final class Tracker {
        final AtomicInteger running = new AtomicInteger();
        final Queue<String> violations = new ConcurrentLinkedQueue<>();
    }

    /**
     * Random trees of scopes (every policy, deadlines, failures, hangs, nested scopes, scopes a
     * subtask leaves open) whose root owner is interrupted at a random moment: when a scope's
     * close returns, no task forked in it (at any depth) still runs.
     */
    @Test
    void noForkedTaskOutlivesItsScope() throws Exception {
        long until = StressSupport.deadline();
        int trees = 0;
        while (System.nanoTime() < until) {
            Tracker tracker = new Tracker();
            Thread owner = Thread.ofVirtual().start(() -> {
                try {
                    tree(0, tracker);
                } catch (Exception e) {
                    // failures, timeouts, interrupts: the outcome is the tree's business, not this test's
                }
            });
            if (ThreadLocalRandom.current().nextBoolean()) {
                Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                owner.interrupt();
            }
            owner.join();
            assertEquals(0, tracker.running.get(), "tree " + trees + ": tasks still running after its root closed");
            assertTrue(tracker.violations.isEmpty(), "tree " + trees + ": " + tracker.violations);
            trees++;
        }
        assertTrue(trees > 0);
    }

    static Object tree(int depth, Tracker tracker) throws Exception {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        Scope.Builder b = Scope.builder()
                .name("d" + depth)
                .policy(Scope.Policy.values()[rnd.nextInt(Scope.Policy.values().length)]);
        boolean deadline = rnd.nextInt(3) == 0; // only a scope with a deadline may have a task that hangs
        if (deadline) {
            b.timeout(Duration.ofMillis(rnd.nextInt(5)));
        }
        if (rnd.nextInt(4) == 0) {
            b.maxConcurrency(1 + rnd.nextInt(3));
        }
        AtomicInteger mine = new AtomicInteger(); // tasks of this scope's subtree running now
        try (Scope scope = b.open()) {
            int n = rnd.nextInt(5);
            for (int i = 0; i < n; i++) {
                int kind = rnd.nextInt(depth < 3 ? 6 : 4);
                int k = kind == 2 && !deadline ? 3 : kind;
                scope.fork(() -> task(k, depth, tracker, mine));
            }
            if (rnd.nextInt(5) == 0) {
                scope.cancel();
            }
            scope.join();
        } finally {
            if (mine.get() != 0) {
                tracker.violations.add(
                        mine.get() + " task(s) of a depth-" + depth + " scope still running after it closed");
            }
        }
        return "ok";
    }

    static Object task(int kind, int depth, Tracker tracker, AtomicInteger scopeRunning) throws Exception {
        tracker.running.incrementAndGet();
        scopeRunning.incrementAndGet();
        try {
            switch (kind) {
                case 0 -> StressSupport.spin(ThreadLocalRandom.current().nextInt(1000));
                case 1 -> throw new IllegalStateException("planned failure");
                case 2 -> new CountDownLatch(1).await(); // hangs until cancelled
                case 3 -> Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                case 4 -> tree(depth + 1, tracker);
                default -> {
                    // a scope left open: it must be closed when this task ends, its fork included
                    Scope left = Scope.builder().name("left").open();
                    left.fork(() -> task(2, depth + 1, tracker, scopeRunning));
                }
            }
            return kind;
        } finally {
            scopeRunning.decrementAndGet();
            tracker.running.decrementAndGet();
        }
    }

    /**
     * The fork/complete/cancel race: many subtasks released at once, half succeeding and half
     * failing, while the owner may cancel. A first-success scope has at most one SUCCESS (exactly
     * one when a success came before any cancel), no CANCELLED subtask shows a value, and join
     * returns only once every task has ended.
     */
    @Test
    void completionsRacingACancelKeepOneWinnerAndLeakNothing() throws Exception {
        long until = StressSupport.deadline();
        int rounds = 0;
        while (System.nanoTime() < until) {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            Scope.Policy policy = Scope.Policy.values()[rnd.nextInt(Scope.Policy.values().length)];
            CountDownLatch gate = new CountDownLatch(1);
            AtomicInteger running = new AtomicInteger();
            List<Subtask<Integer>> subs = new ArrayList<>();
            boolean ownerCancelled = false;
            try (Scope scope = Scope.builder().policy(policy).open()) {
                int n = 2 + rnd.nextInt(14);
                for (int i = 0; i < n; i++) {
                    int v = i;
                    boolean fails = rnd.nextBoolean();
                    subs.add(scope.fork(() -> {
                        running.incrementAndGet();
                        try {
                            gate.await();
                            if (fails) {
                                throw new IllegalArgumentException("planned " + v);
                            }
                            return v;
                        } finally {
                            running.decrementAndGet();
                        }
                    }));
                }
                gate.countDown();
                if (rnd.nextInt(3) == 0) {
                    Thread.onSpinWait();
                    scope.cancel();
                    ownerCancelled = true;
                }
                try {
                    scope.join();
                } catch (IllegalArgumentException | java.util.NoSuchElementException expected) {
                    // all-succeed's first failure, or first-success with every fork failed
                }
                assertEquals(0, running.get(), "round " + rounds + ": join returned while tasks ran");
            }
            long successes = subs.stream()
                    .filter(s -> s.state() == Subtask.State.SUCCESS)
                    .count();
            for (Subtask<Integer> s : subs) {
                assertTrue(s.state() != Subtask.State.RUNNING, "round " + rounds + ": " + s);
                if (s.state() == Subtask.State.CANCELLED) {
                    try {
                        s.get();
                        throw new AssertionError("round " + rounds + ": a cancelled subtask handed out a value");
                    } catch (IllegalStateException expected) {
                        // no value: its result never leaks
                    }
                }
            }
            if (policy == Scope.Policy.FIRST_SUCCESS) {
                assertTrue(successes <= 1, "round " + rounds + ": " + successes + " winners");
            }
            if (!ownerCancelled && policy != Scope.Policy.FIRST_SUCCESS) {
                long failed = subs.stream()
                        .filter(s -> s.state() == Subtask.State.FAILED)
                        .count();
                assertTrue(
                        policy == Scope.Policy.AWAIT_ALL ? successes + failed == subs.size() : failed <= 1,
                        "round " + rounds + ", " + policy + ": " + successes + " succeeded, " + failed + " failed of "
                                + subs.size());
            }
            rounds++;
        }
        assertTrue(rounds > 0);
    }
}
