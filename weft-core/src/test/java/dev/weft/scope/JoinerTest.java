package dev.weft.scope;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Policies as objects: the three policies' joiners, and joiners of a user's own. */
class JoinerTest {

    /**
     * A joiner of one's own: the first {@code k} successes, in the order they completed; the
     * scope is decided by the k-th, and join throws when fewer than k succeeded.
     */
    static final class FirstSuccesses<T> implements Joiner<List<T>> {
        private final int k;
        private final Queue<T> results = new ConcurrentLinkedQueue<>();
        private final AtomicInteger successes = new AtomicInteger();

        FirstSuccesses(int k) {
            this.k = k;
        }

        @Override
        @SuppressWarnings("unchecked")
        public boolean onComplete(Subtask<?> subtask) {
            if (subtask.state() != Subtask.State.SUCCESS) {
                return false;
            }
            int n = successes.incrementAndGet();
            if (n <= k) {
                results.add((T) subtask.get());
            }
            return n == k;
        }

        @Override
        public List<T> result() {
            List<T> r = new ArrayList<>(results);
            if (r.size() < k) {
                throw new IllegalStateException("only " + r.size() + " of " + k + " subtasks succeeded");
            }
            return r;
        }
    }

    /** Partial results at a deadline: whatever succeeded before it, without TimeoutException. */
    static final class SucceededByDeadline implements Joiner<List<Object>> {
        private final Queue<Object> results = new ConcurrentLinkedQueue<>();

        @Override
        public boolean onComplete(Subtask<?> subtask) {
            if (subtask.state() == Subtask.State.SUCCESS) {
                results.add(subtask.get());
            }
            return false;
        }

        @Override
        public void onTimeout() {
            // the deadline is when the caller stops waiting, not a failure
        }

        @Override
        public List<Object> result() {
            return List.copyOf(results);
        }
    }

    static Object hang() throws InterruptedException {
        new CountDownLatch(1).await();
        throw new AssertionError("a latch nobody counts down returned");
    }

    @Test
    @Timeout(30)
    void aJoinerOfOnesOwnDecidesTheScopeAndJoinReturnsItsResult() throws Exception {
        FirstSuccesses<Integer> firstTwo = new FirstSuccesses<>(2);
        CountDownLatch twoDone = new CountDownLatch(2);
        List<Subtask<Object>> hanging = new ArrayList<>();
        try (Scope scope = Scope.builder().name("first-two").joiner(firstTwo).open()) {
            assertSame(firstTwo, scope.joiner());
            assertNull(scope.policy(), "a joiner of one's own is no policy");
            for (int i = 0; i < 3; i++) {
                hanging.add(scope.fork(JoinerTest::hang));
            }
            scope.fork(() -> {
                twoDone.countDown();
                return 1;
            });
            scope.fork(() -> {
                twoDone.countDown();
                return 2;
            });
            List<Integer> two = scope.join(firstTwo);
            assertEquals(List.of(1, 2), two.stream().sorted().toList());
            assertTrue(scope.isCancelled(), "the second success decided the scope");
            hanging.forEach(s -> assertEquals(Subtask.State.CANCELLED, s.state()));
        }
        FirstSuccesses<Integer> firstThree = new FirstSuccesses<>(3);
        try (Scope scope = Scope.builder().joiner(firstThree).open()) {
            scope.fork(() -> 1);
            scope.fork(() -> {
                throw new IllegalArgumentException("no");
            });
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> scope.join(firstThree));
            assertEquals("only 1 of 3 subtasks succeeded", e.getMessage());
        }
    }

    @Test
    @Timeout(30)
    void aJoinerMayReturnPartialResultsAtTheDeadline() throws Exception {
        SucceededByDeadline partial = new SucceededByDeadline();
        // The deadline comes when the test says (the timer's own firing is the block below): with
        // a 200 ms timeout, a loaded machine could start "fast" after it, and the result be empty.
        try (Scope scope =
                Scope.builder().joiner(partial).timeout(Duration.ofHours(1)).open()) {
            scope.fork(() -> "fast");
            Subtask<Object> slow = scope.fork(JoinerTest::hang);
            ScopeTest.awaitTrue(() -> !partial.results.isEmpty()); // "fast" is in; the test's @Timeout guards
            scope.expire();
            assertEquals(List.of("fast"), scope.join(partial));
            assertEquals(Subtask.State.CANCELLED, slow.state());
        }
        try (Scope scope = Scope.builder()
                .joiner(Joiner.awaitAll())
                .timeout(Duration.ofMillis(50))
                .open()) {
            scope.fork(JoinerTest::hang);
            TimeoutException e = assertThrows(TimeoutException.class, scope::join);
            assertTrue(e.getMessage().startsWith("scope scope: deadline of PT0.05S passed"), e.getMessage());
        }
    }

    @Test
    @Timeout(30)
    void thePoliciesAreJoinersAndEachServesOneScope() throws Exception {
        Joiner<Void> first = Joiner.firstSuccess();
        try (Scope scope = Scope.builder().name("mirrors").joiner(first).open()) {
            Subtask<String> a = scope.fork(() -> "a");
            Subtask<Object> b = scope.fork(JoinerTest::hang);
            assertNull(scope.join(first));
            assertEquals("a", a.get());
            assertEquals(Subtask.State.CANCELLED, b.state());
        }
        IllegalStateException reused = assertThrows(
                IllegalStateException.class, () -> Scope.builder().joiner(first).open());
        assertTrue(
                reused.getMessage().contains("a joiner serves one scope: get a new one from Joiner.firstSuccess()"),
                reused.getMessage());
        Scope.Builder kept = Scope.builder().policy(Scope.Policy.AWAIT_ALL);
        for (int i = 0; i < 2; i++) { // a policy makes a new joiner for each scope
            try (Scope scope = kept.open()) {
                assertEquals(Scope.Policy.AWAIT_ALL, scope.policy());
                scope.fork(() -> {
                    throw new IllegalStateException("kept to itself");
                });
                scope.join();
            }
        }
        try (Scope scope = Scope.open()) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> scope.join(Joiner.awaitAll()));
            assertTrue(e.getMessage().contains("pass the joiner the scope was opened with"), e.getMessage());
        }
    }

    @Test
    @Timeout(30)
    void aJoinerThatThrowsDecidesTheScopeAndJoinThrowsIt() throws Exception {
        Joiner<Void> broken = new Joiner<>() {
            @Override
            public boolean onComplete(Subtask<?> subtask) {
                throw new UnsupportedOperationException("joiner bug");
            }

            @Override
            public Void result() {
                return null;
            }
        };
        try (Scope scope = Scope.builder().joiner(broken).open()) {
            scope.fork(() -> 1);
            Subtask<Object> other = scope.fork(JoinerTest::hang);
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, scope::join);
            assertEquals("joiner bug", e.getMessage());
            assertEquals(Subtask.State.CANCELLED, other.state());
        }
    }

    @Test
    @Timeout(30)
    void aScopeLeftOpenByASubtaskIsClosedWhenTheSubtaskEndsAndReported() throws Exception {
        AtomicInteger innerAlive = new AtomicInteger();
        Queue<Thread> seen = new ConcurrentLinkedQueue<>();
        CountDownLatch innerStarted = new CountDownLatch(1);
        Subtask<Object> leaky;
        try (Scope outer =
                Scope.builder().name("outer").policy(Scope.Policy.AWAIT_ALL).open()) {
            leaky = outer.fork(() -> {
                Scope inner = Scope.builder().name("inner").open(); // never closed: a bug
                inner.fork(() -> {
                    seen.add(Thread.currentThread());
                    innerAlive.incrementAndGet();
                    innerStarted.countDown();
                    try {
                        return hang();
                    } finally {
                        innerAlive.decrementAndGet();
                    }
                });
                innerStarted.await();
                return "done";
            });
            outer.join();
        }
        assertEquals(0, innerAlive.get(), "the inner scope's fork ended before the outer scope closed");
        for (Thread t : seen) {
            assertFalse(t.isAlive(), t + " outlived its scope");
        }
        assertEquals(Subtask.State.FAILED, leaky.state(), "the leak is reported as the subtask's failure");
        IllegalStateException report = assertInstanceOf(IllegalStateException.class, leaky.exception());
        assertTrue(
                report.getMessage().startsWith("scope inner opened by a subtask of scope outer was left open"),
                report.getMessage());
    }

    @Test
    @Timeout(30)
    void aScopeClosedProperlyInASubtaskIsNotReported() throws Exception {
        try (Scope outer = Scope.open()) {
            Subtask<Integer> s = outer.fork(() -> {
                try (Scope inner = Scope.open()) {
                    Subtask<Integer> x = inner.fork(() -> 41);
                    inner.join();
                    return x.get() + 1;
                }
            });
            outer.join();
            assertEquals(42, s.get());
        }
    }

    @Test
    @Timeout(30)
    void aSubtaskThatFailsAndLeavesAScopeOpenCarriesTheReport() throws Exception {
        try (Scope outer =
                Scope.builder().name("o").policy(Scope.Policy.AWAIT_ALL).open()) {
            Subtask<Object> s = outer.fork(() -> {
                Scope.builder().name("left").open();
                throw new IllegalArgumentException("own failure");
            });
            outer.join();
            Throwable e = s.exception();
            assertEquals("own failure", e.getMessage());
            assertEquals(1, e.getSuppressed().length);
            assertTrue(e.getSuppressed()[0].getMessage().startsWith("scope left opened by a subtask of scope o"));
        }
    }

    @Test
    @Timeout(10)
    void allSuccessfulOrThrowReturnsEveryResultInForkOrder() throws Exception {
        Joiner<List<Integer>> all = Joiner.allSuccessfulOrThrow();
        try (Scope scope = Scope.open(all)) {
            CountDownLatch second = new CountDownLatch(1);
            scope.fork(() -> {
                second.await(); // completes last, listed first
                return 1;
            });
            scope.fork(() -> {
                second.countDown();
                return 2;
            });
            scope.fork(() -> 3);
            assertEquals(List.of(1, 2, 3), scope.join(all));
            assertSame(all, scope.joiner());
            assertEquals("ALL_SUCCESSFUL", all.toString());
        }
        Joiner<List<Integer>> failing = Joiner.allSuccessfulOrThrow();
        try (Scope scope = Scope.open(failing)) {
            scope.fork(() -> 1);
            scope.fork(() -> {
                throw new IllegalStateException("boom");
            });
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> scope.join(failing));
            assertEquals("boom", e.getMessage(), "the first failure itself, not a list");
        }
    }

    @Test
    @Timeout(10)
    void anySuccessfulResultOrThrowReturnsTheWinnersResult() throws Exception {
        Joiner<String> any = Joiner.anySuccessfulResultOrThrow();
        try (Scope scope = Scope.builder().name("mirrors").joiner(any).open()) {
            scope.fork(() -> {
                throw new IllegalStateException("mirror 1 is down");
            });
            scope.fork(() -> "from mirror 2");
            scope.fork(() -> {
                Thread.sleep(60_000); // cancelled once mirror 2 wins
                return "from mirror 3";
            });
            assertEquals("from mirror 2", scope.join(any));
        }
        Joiner<String> none = Joiner.anySuccessfulResultOrThrow();
        try (Scope scope = Scope.open(none)) {
            scope.fork(() -> {
                throw new IllegalStateException("down");
            });
            assertEquals(
                    "down",
                    assertThrows(IllegalStateException.class, () -> scope.join(none))
                            .getMessage());
        }
        Joiner<String> unforked = Joiner.anySuccessfulResultOrThrow();
        try (Scope scope = Scope.open(unforked)) {
            assertThrows(java.util.NoSuchElementException.class, () -> scope.join(unforked));
        }
    }

    @Test
    @SuppressWarnings("deprecation")
    void theDeprecatedPoliciesMakeTheJoinersOfTheirNewNames() throws Exception {
        assertEquals("ALL_SUCCEED", Scope.Policy.ALL_SUCCEED.newJoiner().toString());
        assertEquals("FIRST_SUCCESS", Scope.Policy.FIRST_SUCCESS.newJoiner().toString());
        assertEquals("AWAIT_ALL", Scope.Policy.AWAIT_ALL.newJoiner().toString());
        assertEquals("ALL_SUCCEED", Joiner.awaitAllSuccessfulOrThrow().toString(), "the default keeps its JFR name");
        try (Scope scope = Scope.open(Scope.Policy.FIRST_SUCCESS)) {
            scope.fork(() -> "x");
            assertNull(scope.join(scope.joiner()), "a policy's first-success joiner returns null, as before");
        }
        Joiner<Void> used = Joiner.awaitAllSuccessfulOrThrow();
        try (Scope scope = Scope.open(used)) {
            scope.join();
        }
        IllegalStateException again = assertThrows(IllegalStateException.class, () -> Scope.open(used));
        assertTrue(again.getMessage().contains("Joiner.awaitAllSuccessfulOrThrow()"), again.getMessage());
    }
}
