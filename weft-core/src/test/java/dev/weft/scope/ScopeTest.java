package dev.weft.scope;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import dev.weft.limit.LimitExceededException;
import dev.weft.limit.Limiter;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ScopeTest {

    static final ContextKey<String> REQUEST = ContextKey.of("request");
    /** A hang guard only: every wait below ends on a condition long before it. */
    static final long GUARD_S = 30;

    /** Blocks until interrupted; records that it was. */
    static String blockUntilInterrupted(CountDownLatch interrupted) throws InterruptedException {
        try {
            new CountDownLatch(1).await();
            throw new AssertionError("unreachable");
        } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
        }
    }

    @Test
    void allSucceedJoinsEveryForkOnNamedVirtualThreads() throws Exception {
        try (Scope scope = Scope.builder().name("two").open()) {
            Subtask<String> a = scope.fork(() -> Thread.currentThread().getName());
            Subtask<Boolean> b = scope.fork(() -> Thread.currentThread().isVirtual());
            scope.join();
            assertTrue(a.get().matches("weft-two-\\d+"), a.get());
            assertTrue(b.get());
            assertEquals(Subtask.State.SUCCESS, a.state());
        }
    }

    @Test
    void firstFailureCancelsTheRestAndIsThrownWithSiblingsSuppressed() throws Exception {
        IllegalStateException boom = new IllegalStateException("boom");
        CountDownLatch interrupted = new CountDownLatch(2);
        CountDownLatch started = new CountDownLatch(2);
        Subtask<String> blocked;
        Subtask<String> sibling;
        Subtask<String> failing;
        try (Scope scope = Scope.open()) {
            blocked = scope.fork(() -> {
                started.countDown();
                return blockUntilInterrupted(interrupted);
            });
            sibling = scope.fork(() -> {
                try {
                    started.countDown();
                    return blockUntilInterrupted(interrupted);
                } catch (InterruptedException e) {
                    throw new IllegalArgumentException("sibling failed on its own way out");
                }
            });
            failing = scope.fork(() -> {
                started.await(); // a sibling cancelled before it starts never runs, so is never interrupted
                throw boom;
            });
            Exception thrown = assertThrows(Exception.class, scope::join);
            assertSame(boom, thrown, "the original exception, not a wrapper");
            assertEquals(1, thrown.getSuppressed().length);
            assertEquals("sibling failed on its own way out", thrown.getSuppressed()[0].getMessage());
        }
        assertTrue(interrupted.await(0, TimeUnit.SECONDS), "both siblings were interrupted before join returned");
        assertEquals(Subtask.State.FAILED, failing.state());
        assertSame(boom, failing.exception());
        assertEquals(Subtask.State.CANCELLED, blocked.state());
        assertEquals(Subtask.State.CANCELLED, sibling.state());
        IllegalStateException noValue = assertThrows(IllegalStateException.class, blocked::get);
        assertTrue(noValue.getMessage().contains("CANCELLED"), noValue.getMessage());
    }

    @Test
    void firstSuccessWinsAndNoLoserResultLeaks() throws Exception {
        try (Scope scope = Scope.open(Scope.Policy.FIRST_SUCCESS)) {
            Subtask<String> loser = scope.fork(() -> {
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    return "late"; // returns a value after being cancelled: it must not show
                }
                return "never";
            });
            Subtask<String> winner = scope.fork(() -> "fast");
            scope.join();
            assertEquals("fast", winner.get());
            assertEquals(Subtask.State.CANCELLED, loser.state());
            assertThrows(IllegalStateException.class, loser::get);
        }
    }

    @Test
    void firstSuccessThrowsWhenAllFailAndNeedsAFork() throws Exception {
        try (Scope scope = Scope.open(Scope.Policy.FIRST_SUCCESS)) {
            scope.fork(() -> {
                throw new IllegalStateException("a");
            });
            scope.fork(() -> {
                throw new IllegalStateException("b");
            });
            IllegalStateException e = assertThrows(IllegalStateException.class, scope::join);
            assertEquals(1, e.getSuppressed().length);
            assertTrue(List.of("a", "b").contains(e.getMessage()));
            assertTrue(List.of("a", "b").contains(e.getSuppressed()[0].getMessage()));
        }
        try (Scope scope = Scope.open(Scope.Policy.FIRST_SUCCESS)) {
            assertThrows(NoSuchElementException.class, scope::join);
        }
    }

    @Test
    void awaitAllCollectsEveryOutcome() throws Exception {
        try (Scope scope = Scope.open(Scope.Policy.AWAIT_ALL)) {
            Subtask<Integer> ok = scope.fork(() -> 1);
            Subtask<Integer> bad = scope.fork(() -> {
                throw new IllegalStateException("bad");
            });
            Subtask<Integer> slow = scope.fork(() -> {
                Thread.sleep(20);
                return 3;
            });
            scope.join();
            assertEquals(1, ok.get());
            assertEquals("bad", bad.exception().getMessage());
            assertEquals(3, slow.get(), "a failure cancels nothing under await-all");
        }
    }

    @Test
    void deadlineCancelsAndJoinThrowsTimeout() throws Exception {
        try (Scope scope = Scope.builder().timeout(Duration.ofMillis(50)).open()) {
            Subtask<String> s = scope.fork(() -> blockUntilInterrupted(new CountDownLatch(1)));
            TimeoutException e = assertThrows(TimeoutException.class, scope::join);
            assertTrue(e.getMessage().contains("PT0.05S"), e.getMessage());
            assertEquals(Subtask.State.CANCELLED, s.state());
        }
        try (Scope scope = Scope.builder()
                .deadline(Instant.now().plusMillis(30))
                .policy(Scope.Policy.AWAIT_ALL)
                .open()) {
            Subtask<String> s = scope.fork(() -> blockUntilInterrupted(new CountDownLatch(1)));
            assertThrows(TimeoutException.class, scope::join);
            assertEquals(Subtask.State.CANCELLED, s.state());
        }
        try (Scope scope =
                Scope.builder().deadline(Instant.now().minusSeconds(1)).open()) {
            Subtask<String> s = scope.fork(() -> blockUntilInterrupted(new CountDownLatch(1)));
            assertThrows(TimeoutException.class, scope::join, "a deadline already past cancels at once");
            assertEquals(Subtask.State.CANCELLED, s.state());
        }
    }

    @Test
    void theDeadlineInterruptsASubtaskThatIsRunning() throws Exception {
        // The timer's own firing is tested above; here the deadline comes when the test says, so
        // that the subtask has surely started and must be interrupted.
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        try (Scope scope = Scope.builder().timeout(Duration.ofHours(1)).open()) {
            Subtask<String> s = scope.fork(() -> {
                started.countDown();
                return blockUntilInterrupted(interrupted);
            });
            assertTrue(started.await(GUARD_S, TimeUnit.SECONDS));
            scope.expire();
            assertThrows(TimeoutException.class, scope::join);
            assertEquals(0, interrupted.getCount(), "the running subtask was interrupted");
            assertEquals(Subtask.State.CANCELLED, s.state());
        }
    }

    @Test
    void aTimeoutCountsFromWhenTheScopeOpens() throws Exception {
        Duration timeout = Duration.ofMillis(300);
        Scope.Builder kept = Scope.builder().name("req").timeout(timeout); // e.g. kept in a field
        Thread.sleep(400); // past the timeout
        long before = System.nanoTime();
        try (Scope scope = kept.open()) {
            assertTrue(
                    scope.deadlineNanos() - before >= timeout.toNanos(),
                    "the whole timeout is left at open: " + (scope.deadlineNanos() - before) + " ns");
            assertFalse(scope.isCancelled());
        }
        long again = System.nanoTime();
        try (Scope scope = kept.open()) {
            assertTrue(scope.deadlineNanos() - again >= timeout.toNanos(), "and again at the next open");
        }
    }

    @Test
    @Timeout(GUARD_S)
    void theDeadlineEndsAForkWaitingForAPermit() throws Exception {
        Limiter db = Limiter.of("db", 1);
        try (Limiter.Permit held = db.acquire()) { // someone else holds the only permit throughout
            try (Scope scope =
                    Scope.builder().limiter(db).timeout(Duration.ofMillis(100)).open()) {
                Subtask<String> s = scope.fork(() -> "never runs");
                assertEquals(Subtask.State.CANCELLED, s.state());
                assertTrue(scope.isCancelled());
                assertFalse(Thread.currentThread().isInterrupted(), "the deadline's interrupt does not leak");
                assertThrows(TimeoutException.class, scope::join);
            }
            assertEquals(1, db.inUse(), "only the outside holder's permit");
        }
        assertEquals(0, db.inUse());
        assertEquals(0, db.waiting());
    }

    @Test
    @Timeout(GUARD_S)
    void aFailureEndsTheOwnersWaitForAPermit() throws Exception {
        Limiter db = Limiter.of("db", 1);
        IllegalStateException boom = new IllegalStateException("boom");
        CountDownLatch release = new CountDownLatch(1);
        try (Scope scope = Scope.builder().limiter(db).open()) {
            Subtask<String> failing = scope.fork(() -> {
                awaitTrue(() -> db.waiting() == 2); // the outsider, then the owner
                throw boom;
            });
            // Queued ahead of the owner, the outsider takes the permit the failed fork gives back:
            // only the cancel can end the owner's wait.
            Thread outsider = Thread.ofVirtual().start(() -> {
                try (Limiter.Permit p = db.acquire()) {
                    release.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            awaitTrue(() -> db.waiting() == 1);
            Subtask<String> waiting = scope.fork(() -> "never runs");
            assertEquals(Subtask.State.CANCELLED, waiting.state());
            assertFalse(Thread.currentThread().isInterrupted(), "the cancel's interrupt does not leak");
            assertSame(boom, assertThrows(IllegalStateException.class, scope::join));
            assertEquals(Subtask.State.FAILED, failing.state());
            release.countDown();
            outsider.join();
        }
        assertEquals(0, db.inUse());
    }

    @Test
    @Timeout(GUARD_S)
    void interruptingTheOwnerWhileItWaitsForAPermitCancelsAndJoinSaysSo() throws Exception {
        Limiter db = Limiter.of("db", 1);
        AtomicReference<Subtask<String>> sub = new AtomicReference<>();
        AtomicReference<Throwable> joinThrew = new AtomicReference<>();
        try (Limiter.Permit held = db.acquire()) {
            Thread owner = Thread.ofVirtual().start(() -> {
                try (Scope scope = Scope.builder().limiter(db).open()) {
                    sub.set(scope.fork(() -> "never runs"));
                    scope.join();
                } catch (Throwable t) {
                    joinThrew.set(t);
                }
            });
            awaitTrue(() -> db.waiting() == 1);
            owner.interrupt();
            owner.join();
        }
        assertEquals(Subtask.State.CANCELLED, sub.get().state());
        assertInstanceOf(InterruptedException.class, joinThrew.get(), "an outside interrupt stays set for join");
    }

    @Test
    @Timeout(GUARD_S)
    void maxConcurrencyCapsRunningForksAndTheThreadsAlive() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger forked = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Scope> opened = new AtomicReference<>();
        List<Subtask<Integer>> tasks = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread owner = Thread.ofVirtual().start(() -> {
            try (Scope scope = Scope.builder().maxConcurrency(3).open()) {
                opened.set(scope);
                for (int i = 0; i < 30; i++) {
                    int n = i;
                    tasks.add(scope.fork(() -> {
                        peak.accumulateAndGet(running.incrementAndGet(), Math::max);
                        release.await();
                        running.decrementAndGet();
                        return n;
                    }));
                    forked.incrementAndGet();
                }
                scope.join();
            } catch (Throwable t) {
                failed.set(t);
            } finally {
                done.countDown();
            }
        });
        // Three forks hold the permits and block; the owner waits for a fourth. A fork's thread is
        // created only once it has a permit, so exactly three threads exist now.
        awaitTrue(() ->
                opened.get() != null && opened.get().limiter().orElseThrow().waiting() == 1 && running.get() == 3);
        assertEquals(3, forked.get(), "fork waits for a permit before it starts a thread");
        release.countDown();
        owner.join();
        assertNull(failed.get());
        assertTrue(peak.get() <= 3, "peak " + peak.get());
        for (int i = 0; i < 30; i++) {
            assertEquals(i, tasks.get(i).get());
        }
    }

    @Test
    void aSharedLimiterCapsAndMayRejectAFork() throws Exception {
        Limiter shared = Limiter.builder("db", 1).maxWaiting(0).build();
        try (Limiter.Permit held = shared.acquire();
                Scope scope = Scope.builder().limiter(shared).open()) {
            LimitExceededException e = assertThrows(LimitExceededException.class, () -> scope.fork(() -> 1));
            assertEquals("db", e.limiter());
            held.close();
            Subtask<Integer> ok = scope.fork(() -> shared.inUse());
            scope.join();
            assertEquals(1, ok.get());
        }
        assertEquals(0, shared.inUse(), "every permit came back");
    }

    @Test
    void onlyTheOwnerMayForkJoinCancelAndClose() throws Exception {
        try (Scope scope = Scope.builder().name("owned").open()) {
            AtomicReference<Throwable> fork = new AtomicReference<>();
            AtomicReference<Throwable> join = new AtomicReference<>();
            AtomicReference<Throwable> close = new AtomicReference<>();
            Thread other = Thread.ofVirtual().start(() -> {
                fork.set(catching(() -> scope.fork(() -> 1)));
                join.set(catching(() -> {
                    scope.join();
                    return null;
                }));
                close.set(catching(() -> {
                    scope.close();
                    return null;
                }));
            });
            other.join();
            for (Throwable t : List.of(fork.get(), join.get(), close.get())) {
                assertInstanceOf(WrongThreadException.class, t);
                assertTrue(t.getMessage().contains("only the owner of scope owned"), t.getMessage());
                assertTrue(t.getMessage().contains("from the thread that opened the scope"), t.getMessage());
            }
            assertFalse(scope.isClosed());
        }
    }

    @Test
    void forkAfterCloseIsAnError() {
        Scope scope = Scope.builder().name("done").open();
        scope.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> scope.fork(() -> 1));
        assertTrue(e.getMessage().contains("scope done is closed"), e.getMessage());
        scope.close(); // idempotent
    }

    @Test
    void closingWithoutJoinCancelsWaitsAndComplains() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        Scope scope = Scope.open();
        Subtask<String> s = scope.fork(() -> {
            try {
                started.countDown();
                return blockUntilInterrupted(interrupted);
            } finally {
                Thread.sleep(20); // still busy after the interrupt: close must wait for it
                finished.set(true);
            }
        });
        assertTrue(started.await(GUARD_S, TimeUnit.SECONDS)); // a fork cancelled before it starts never runs
        IllegalStateException e = assertThrows(IllegalStateException.class, scope::close);
        assertTrue(e.getMessage().contains("Join the scope before it closes, or cancel it"), e.getMessage());
        assertTrue(e.getMessage().contains("(join() / cancel())"), e.getMessage());
        assertFalse(e.getMessage().contains("Clojure"), "weft-core speaks Java: " + e.getMessage());
        assertTrue(finished.get(), "close returned only after the subtask's code ended");
        assertEquals(Subtask.State.CANCELLED, s.state());
        Scope cancelled = Scope.open();
        cancelled.fork(() -> 1);
        cancelled.cancel();
        cancelled.close(); // cancelling first says the outcomes are not wanted: no complaint
    }

    @Test
    void interruptingTheOwnerCancelsTheScope() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch forked = new CountDownLatch(1);
        AtomicReference<Throwable> joinThrew = new AtomicReference<>();
        AtomicReference<Subtask<String>> sub = new AtomicReference<>();
        Thread owner = Thread.ofVirtual().start(() -> {
            try (Scope scope = Scope.open()) {
                sub.set(scope.fork(() -> {
                    forked.countDown();
                    return blockUntilInterrupted(interrupted);
                }));
                scope.join();
            } catch (Throwable t) {
                joinThrew.set(t);
            }
        });
        assertTrue(forked.await(GUARD_S, TimeUnit.SECONDS));
        owner.interrupt();
        owner.join();
        assertInstanceOf(InterruptedException.class, joinThrew.get());
        assertEquals(0, interrupted.getCount());
        assertEquals(Subtask.State.CANCELLED, sub.get().state());
    }

    @Test
    void nestedScopesAreCancelledThroughTheirOwner() throws Exception {
        CountDownLatch innerInterrupted = new CountDownLatch(1);
        CountDownLatch innerStarted = new CountDownLatch(1);
        try (Scope outer = Scope.builder().name("outer").open()) {
            outer.fork(() -> {
                try (Scope inner = Scope.builder().name("inner").open()) {
                    assertSame(inner, Scope.current().orElseThrow());
                    inner.fork(() -> {
                        innerStarted.countDown();
                        return blockUntilInterrupted(innerInterrupted);
                    });
                    inner.join();
                }
                return "unreachable";
            });
            outer.fork(() -> {
                innerStarted.await();
                throw new IllegalStateException("outer fails");
            });
            IllegalStateException e = assertThrows(IllegalStateException.class, outer::join);
            assertEquals("outer fails", e.getMessage());
        }
        assertEquals(0, innerInterrupted.getCount(), "the inner scope's fork was cancelled too");
    }

    @Test
    void currentScopeIsTheOwnedOneOrTheForkingOne() throws Exception {
        assertEquals(Optional.empty(), Scope.current());
        try (Scope outer = Scope.open()) {
            assertSame(outer, Scope.current().orElseThrow());
            Subtask<Scope> seen = outer.fork(() -> Scope.current().orElseThrow());
            try (Scope inner = Scope.open()) {
                assertSame(inner, Scope.current().orElseThrow());
            }
            assertSame(outer, Scope.current().orElseThrow(), "closing restores the outer scope");
            outer.join();
            assertSame(outer, seen.get());
        }
        assertEquals(Optional.empty(), Scope.current());
    }

    @Test
    void aThreadOfAnEndedScopeStillBelongsToIt() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        AtomicReference<Optional<Scope>> current = new AtomicReference<>();
        AtomicReference<Optional<Scope>> orEnded = new AtomicReference<>();
        try (Scope outer = Scope.open()) {
            Scope inner = Scope.open();
            inner.spawn(() -> {
                try {
                    blockUntilInterrupted(interrupted);
                } catch (InterruptedException e) {
                    // the inner scope is closing: it is closed, and this thread still runs
                    current.set(Scope.current());
                    orEnded.set(Scope.currentOrEnded());
                }
            });
            assertSame(inner, Scope.currentOrEnded().orElseThrow(), "the owned scope");
            inner.close(); // interrupts the spawned thread and waits for it
            assertEquals(0, interrupted.getCount());
            assertSame(outer, current.get().orElseThrow(), "current() moves on to the enclosing scope");
            assertSame(inner, orEnded.get().orElseThrow(), "currentOrEnded() keeps the ended one");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> inner.spawn(() -> {}));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
        assertEquals(Optional.empty(), Scope.currentOrEnded());
    }

    @Test
    void aThreadThatOutlivesItsClosedScopeBelongsToNoScope() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Object> seen = new AtomicReference<>();
        Thread outliving;
        try (Scope scope = Scope.open()) {
            // A thread started from a subtask with context conveyance, not owned by the scope.
            Subtask<Thread> started = scope.fork(() -> Thread.ofVirtual().start(Context.wrap(() -> {
                try {
                    release.await();
                    seen.set(List.of(Scope.current(), Scope.currentOrEnded()));
                } catch (Throwable t) {
                    seen.set(t);
                }
            })));
            scope.join();
            outliving = started.get();
        }
        release.countDown();
        outliving.join();
        assertTrue(seen.get() instanceof CancellationException, String.valueOf(seen.get()));
        assertTrue(((Throwable) seen.get()).getMessage().contains("closed since"), String.valueOf(seen.get()));
    }

    @Test
    void closingAnOuterScopeClosesNestedOnesLeftOpen() {
        Scope outer = Scope.open();
        Scope inner = Scope.open();
        outer.close();
        assertTrue(inner.isClosed());
        assertEquals(Optional.empty(), Scope.current());
    }

    @Test
    void spawnedThreadsEndWithTheScopeAndMayStartFromInsideIt() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(2);
        AtomicBoolean finished = new AtomicBoolean();
        Scope scope = Scope.open();
        Thread background = scope.spawn(() -> {
            try {
                blockUntilInterrupted(interrupted);
            } catch (InterruptedException e) {
                finished.set(true);
            }
        });
        Subtask<Thread> fromInside =
                scope.fork(() -> Scope.current().orElseThrow().spawn(() -> {
                    try {
                        blockUntilInterrupted(interrupted);
                    } catch (InterruptedException ignored) {
                        // ends with the scope
                    }
                }));
        scope.join(); // does not wait for spawned threads
        assertTrue(background.isAlive(), "nothing interrupts a spawned thread before close");
        assertFalse(finished.get());
        assertEquals(2, interrupted.getCount());
        scope.close();
        assertTrue(finished.get(), "close interrupted the spawned thread and waited for it");
        assertEquals(0, interrupted.getCount());
        fromInside.get().join();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> scope.spawn(() -> {}));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void spawnOnACancelledScopeIsRefused() {
        try (Scope scope = Scope.builder().name("stopped").open()) {
            scope.cancel();
            CancellationException e = assertThrows(CancellationException.class, () -> scope.spawn(() -> {}));
            assertTrue(e.getMessage().contains("scope stopped is cancelled"), e.getMessage());
        }
    }

    /** A factory whose threads cannot be started, as when the JVM cannot create one more. */
    private static ThreadFactory unstartable() {
        return task -> new Thread(task) {
            @Override
            public void start() {
                throw new RejectedExecutionException("no thread for you");
            }
        };
    }

    @Test
    @Timeout(GUARD_S)
    void aForkWhoseThreadCannotStartGivesItsPermitBackAndFails() throws Exception {
        try (Scope scope =
                Scope.builder().maxConcurrency(1).threads(unstartable()).open()) {
            RejectedExecutionException e = assertThrows(RejectedExecutionException.class, () -> scope.fork(() -> 1));
            assertEquals("no thread for you", e.getMessage());
            assertEquals(0, scope.limiter().orElseThrow().inUse(), "the permit came back");
            assertSame(e, assertThrows(RejectedExecutionException.class, scope::join), "join reports the failed fork");
        }
    }

    @Test
    @Timeout(value = GUARD_S, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // close ignores interrupts
    void aSpawnWhoseThreadCannotStartLeavesNothingForCloseToWaitFor() {
        Scope scope = Scope.builder().threads(unstartable()).open();
        assertThrows(RejectedExecutionException.class, () -> scope.spawn(() -> {}));
        scope.close(); // returns: the thread that never started is not waited for
        assertTrue(scope.isClosed());
    }

    @Test
    void subtaskAwaitWaitsForCompletionFromAnyThread() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (Scope scope = Scope.open()) {
            Subtask<String> s = scope.fork(() -> {
                release.await();
                return "done";
            });
            assertEquals(Subtask.State.RUNNING, s.await(Duration.ofMillis(10)), "blocked, so still running");
            assertEquals(Subtask.State.RUNNING, s.await(Duration.ZERO));
            AtomicReference<Subtask.State> seen = new AtomicReference<>();
            Thread other = Thread.ofVirtual().start(() -> {
                try {
                    seen.set(s.await(Duration.ofSeconds(GUARD_S)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            release.countDown();
            other.join();
            assertEquals(Subtask.State.SUCCESS, seen.get());
            assertEquals("done", s.get());
            scope.join();
        }
    }

    /** Forks a task that captures the context and keeps a large result; returns what the test needs to watch. */
    private static Object[] forkAndCapture(
            AtomicReference<Context.Snapshot> kept, AtomicReference<Subtask<?>> keptSubtask) throws Exception {
        byte[] captured = new byte[1 << 20];
        WeakReference<Object> capturedRef = new WeakReference<>(captured);
        WeakReference<Object> resultRef;
        WeakReference<Scope> scopeRef;
        try (Scope scope = Scope.open()) {
            Subtask<byte[]> s = scope.fork(() -> {
                kept.set(Context.capture());
                return new byte[captured.length];
            });
            Subtask<Integer> other = scope.fork(() -> captured.length);
            scope.join();
            resultRef = new WeakReference<>(s.get());
            scopeRef = new WeakReference<>(scope);
            keptSubtask.set(other);
        }
        return new Object[] {resultRef, scopeRef, capturedRef};
    }

    @Test
    @Timeout(GUARD_S)
    void aClosedScopeIsCollectedWhileASnapshotCapturedInsideItLivesOn() throws Exception {
        AtomicReference<Context.Snapshot> kept = new AtomicReference<>();
        AtomicReference<Subtask<?>> keptSubtask = new AtomicReference<>();
        Object[] refs = forkAndCapture(kept, keptSubtask);
        WeakReference<?> result = (WeakReference<?>) refs[0];
        WeakReference<?> scope = (WeakReference<?>) refs[1];
        WeakReference<?> capturedByTask = (WeakReference<?>) refs[2];
        awaitCollected(capturedByTask);
        assertNotNull(keptSubtask.get(), "a subtask kept for its result lets go of its task once it ran");
        keptSubtask.set(null);
        awaitCollected(result);
        awaitCollected(scope);
        Context.Snapshot s = kept.get();
        assertNotNull(s, "the snapshot lived on, holding no path to the scope and its results");
        assertEquals(0, s.size(), "the scope's own key is hidden");
        assertEquals(Map.of(), s.toMap());
        assertEquals("Snapshot{}", s.toString());
        assertEquals(Optional.empty(), s.call(Scope::current), "the scope it names is closed");
    }

    @Test
    void forksSeeTheContextBoundAtTheirForkPoint() throws Exception {
        try (Scope scope = Scope.open()) {
            List<Subtask<String>> seen = new ArrayList<>();
            for (String r : List.of("r1", "r2", "r3")) {
                Context.where(REQUEST, r).run(() -> seen.add(scope.fork(REQUEST::get)));
            }
            Subtask<String> none = scope.fork(REQUEST::get);
            scope.join();
            assertEquals(
                    List.of("r1", "r2", "r3"), seen.stream().map(Subtask::get).toList());
            assertEquals(null, none.get());
        }
    }

    @Test
    void badOptionsAreRejectedWithTheFix() {
        IllegalArgumentException name = assertThrows(
                IllegalArgumentException.class, () -> Scope.builder().name("a b"));
        assertTrue(name.getMessage().contains("without spaces"), name.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Scope.builder().timeout(Duration.ofMillis(-1)));
        IllegalArgumentException cap = assertThrows(
                IllegalArgumentException.class, () -> Scope.builder().maxConcurrency(0));
        assertTrue(cap.getMessage().contains("leave it unset"), cap.getMessage());
        try (Scope scope = Scope.open()) {
            assertThrows(NullPointerException.class, () -> scope.fork(null));
        }
    }

    /** Collects garbage until {@code ref} is cleared; the hang guard is the test's timeout. */
    static void awaitCollected(WeakReference<?> ref) throws InterruptedException {
        while (ref.get() != null) {
            System.gc();
            Thread.sleep(10);
        }
    }

    /** Waits until {@code condition} holds; the hang guard is the test's timeout. */
    static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            Thread.sleep(1);
        }
    }

    private static Throwable catching(java.util.concurrent.Callable<?> c) {
        try {
            c.call();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
