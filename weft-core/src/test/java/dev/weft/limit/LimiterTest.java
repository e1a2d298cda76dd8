package dev.weft.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class LimiterTest {

    @Test
    void neverLetsMoreThanItsPermitsInAndLosesNoCaller() throws Exception {
        Limiter limiter = Limiter.of("test", 3);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        try (var ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 200; i++) {
                ex.submit(() -> limiter.call(() -> {
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    Thread.sleep(1);
                    inside.decrementAndGet();
                    return done.incrementAndGet();
                }));
            }
        }
        assertEquals(200, done.get());
        assertTrue(most.get() <= 3, "at most 3 inside, saw " + most.get());
        assertEquals(0, limiter.inUse());
        assertEquals(0, limiter.rejected());
    }

    @Test
    void rejectsAtOnceWhenNoWaitingIsAllowed() throws Exception {
        Limiter limiter = Limiter.builder("db", 1).maxWaiting(0).build();
        try (Limiter.Permit held = limiter.acquire()) {
            var e = assertThrows(LimitExceededException.class, limiter::acquire);
            assertEquals("db", e.limiter());
            assertFalse(e.timedOut());
            assertTrue(e.getMessage().contains("all 1 permits in use and no waiting allowed"), e.getMessage());
            assertTrue(e.getMessage().contains("raise permits or maxWaiting"), e.getMessage());
            assertEquals(1, limiter.rejected());
        }
        assertEquals(0, limiter.inUse());
    }

    @Test
    void aFullWaitQueueRejectsTheNextCaller() throws Exception {
        Limiter limiter = Limiter.builder("q", 1).maxWaiting(1).build();
        Limiter.Permit held = limiter.acquire();
        CompletableFuture<Limiter.Permit> waiter = new CompletableFuture<>();
        startWaiter(limiter, waiter);
        await(() -> limiter.waiting() == 1);
        var e = assertThrows(LimitExceededException.class, limiter::acquire);
        assertTrue(e.getMessage().contains("1 already waiting"), e.getMessage());
        held.close();
        waiter.get().close();
        assertEquals(0, limiter.inUse());
        assertEquals(0, limiter.waiting());
    }

    @Test
    void aWaitLongerThanMaxWaitIsRejected() throws Exception {
        Limiter limiter =
                Limiter.builder("slow", 1).maxWait(Duration.ofMillis(20)).build();
        try (Limiter.Permit held = limiter.acquire()) {
            var e = assertThrows(LimitExceededException.class, limiter::acquire);
            assertTrue(e.timedOut());
            assertTrue(e.getMessage().contains("within PT0.02S"), e.getMessage());
        }
        assertEquals(0, limiter.waiting());
    }

    @Test
    void anInterruptedWaiterTakesNoPermit() throws Exception {
        Limiter limiter = Limiter.of("int", 1);
        Limiter.Permit held = limiter.acquire();
        CompletableFuture<Limiter.Permit> outcome = new CompletableFuture<>();
        Thread waiter = startWaiter(limiter, outcome);
        await(() -> limiter.waiting() == 1);
        waiter.interrupt();
        var e = assertThrows(ExecutionException.class, outcome::get);
        assertTrue(e.getCause() instanceof InterruptedException, String.valueOf(e.getCause()));
        assertEquals(1, limiter.inUse());
        assertEquals(0, limiter.waiting());
        held.close();
        assertEquals(0, limiter.inUse());
    }

    @Test
    void waitersAreServedInArrivalOrder() throws Exception {
        Limiter limiter = Limiter.of("fifo", 1);
        Limiter.Permit held = limiter.acquire();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = i;
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    limiter.call(() -> order.add(id));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }));
            int expected = i + 1;
            await(() -> limiter.waiting() == expected);
        }
        held.close();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of(0, 1, 2, 3, 4), order);
    }

    @Test
    void callGivesThePermitBackWhenTheTaskThrows() {
        Limiter limiter = Limiter.of("throw", 1);
        var e = assertThrows(
                IllegalStateException.class,
                () -> limiter.call(() -> {
                    throw new IllegalStateException("boom");
                }));
        assertEquals("boom", e.getMessage());
        assertEquals(0, limiter.inUse());
    }

    @Test
    void closingAPermitTwiceGivesBackOnlyOne() throws Exception {
        Limiter limiter = Limiter.of("twice", 2);
        Limiter.Permit a = limiter.acquire();
        Limiter.Permit b = limiter.acquire();
        a.close();
        a.close();
        assertEquals(1, limiter.inUse());
        b.close();
        assertEquals(0, limiter.inUse());
    }

    @Test
    void tryAcquireNeverWaits() throws Exception {
        Limiter limiter = Limiter.of("try", 1);
        Limiter.Permit p = limiter.tryAcquire().orElseThrow();
        assertTrue(limiter.tryAcquire().isEmpty());
        assertEquals(0, limiter.rejected());
        p.close();
        assertTrue(limiter.tryAcquire().isPresent());
    }

    @Test
    void waitingNeverReadsAboveMaxWaitingNotEvenForARejectedCaller() throws Exception {
        // Two threads are rejected over and over (no waiting allowed) while a third reads
        // waiting(): a caller used to count itself as waiting before finding the queue full.
        Limiter limiter = Limiter.builder("zero", 1).maxWaiting(0).build();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger rejections = new AtomicInteger();
        try (Limiter.Permit held = limiter.acquire()) {
            List<Thread> rejected = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                rejected.add(Thread.ofPlatform().start(() -> {
                    while (rejections.get() < 100_000 && most.get() == 0) {
                        try {
                            limiter.acquire().close();
                        } catch (LimitExceededException e) {
                            rejections.incrementAndGet();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }));
            }
            Thread reader = Thread.ofPlatform().start(() -> {
                while (rejected.stream().anyMatch(Thread::isAlive)) {
                    most.accumulateAndGet(limiter.waiting(), Math::max);
                }
            });
            for (Thread t : rejected) {
                t.join();
            }
            reader.join();
        }
        assertEquals(0, most.get(), "waiting() read above maxWaiting(0) after " + rejections.get() + " rejections");
        assertEquals(rejections.get(), limiter.rejected());
    }

    @Test
    void badConfigurationNamesTheProblem() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Limiter.of("x", 0))
                .getMessage()
                .contains("permits must be positive; got 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Limiter.of(" ", 1))
                .getMessage()
                .contains("needs a name"));
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> Limiter.builder("x", 1).maxWaiting(-1))
                .getMessage()
                .contains("maxWaiting must be >= 0"));
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> Limiter.builder("x", 1).maxWait(Duration.ofSeconds(-1)))
                .getMessage()
                .contains("maxWait must not be negative"));
    }

    /** A virtual thread that waits for a permit and completes {@code outcome} with it or with what it threw. */
    private static Thread startWaiter(Limiter limiter, CompletableFuture<Limiter.Permit> outcome) {
        return Thread.ofVirtual().start(() -> {
            try {
                outcome.complete(limiter.acquire());
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        });
    }

    /** Waits for a condition another thread makes true (no timing assumption: it just polls). */
    static void await(BooleanSupplier condition) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            Thread.sleep(1);
        }
    }
}
