package dev.weft.limit;

import static dev.weft.limit.LimiterTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A {@link Limiter} over an {@link AdaptiveLimit}: the limit the test sets is the one enforced. */
class AdaptiveLimiterTest {

    /** A limit the test moves by hand, recording every sample. */
    static final class SetLimit implements AdaptiveLimit {
        volatile int limit;
        final List<long[]> samples = new CopyOnWriteArrayList<>(); // {latency, inFlight, dropped}

        SetLimit(int limit) {
            this.limit = limit;
        }

        @Override
        public int limit() {
            return limit;
        }

        @Override
        public void onSample(long startNanos, long latencyNanos, int inFlight, boolean dropped) {
            samples.add(new long[] {latencyNanos, inFlight, dropped ? 1 : 0});
        }
    }

    @Test
    void letsCallersInOnlyUnderTheCurrentLimit() throws Exception {
        SetLimit limit = new SetLimit(2);
        Limiter limiter = Limiter.builder("api", limit).maxWaiting(0).build();
        Limiter.Permit a = limiter.acquire();
        Limiter.Permit b = limiter.acquire();
        assertEquals(2, limiter.permits());
        var e = assertThrows(LimitExceededException.class, limiter::acquire);
        assertTrue(e.getMessage().contains("all 2 permits in use and no waiting allowed"), e.getMessage());
        limit.limit = 3; // the algorithm raised it: one more gets in
        Limiter.Permit c = limiter.acquire();
        assertEquals(3, limiter.inUse());
        limit.limit = 1; // lowered: those in keep their permits, nobody new gets in until fewer than 1 are in
        a.close();
        b.close();
        assertThrows(LimitExceededException.class, limiter::acquire);
        assertTrue(limiter.tryAcquire().isEmpty());
        c.close();
        try (Limiter.Permit d = limiter.acquire()) {
            assertEquals(1, limiter.inUse());
        }
        assertEquals(0, limiter.inUse());
        assertEquals(2, limiter.rejected(), "tryAcquire is not a rejection");
    }

    @Test
    void everyPermitGivenBackIsASampleOfItsLatencyAndInFlightCount() throws Exception {
        SetLimit limit = new SetLimit(5);
        Limiter limiter = Limiter.builder("s", limit).build();
        Limiter.Permit first = limiter.acquire();
        Limiter.Permit second = limiter.acquire();
        Thread.sleep(20);
        second.close();
        first.closeDropped();
        first.close(); // once only
        limiter.acquire().closeIgnored(); // no sample
        assertEquals(2, limit.samples.size());
        long[] s2 = limit.samples.get(0);
        long[] s1 = limit.samples.get(1);
        assertTrue(s2[0] >= Duration.ofMillis(20).toNanos(), "latency " + s2[0]);
        assertEquals(2, s2[1], "the second was let in with two in flight, itself included");
        assertEquals(0, s2[2]);
        assertEquals(1, s1[1]);
        assertEquals(1, s1[2], "closeDropped reports a drop");
        assertEquals(0, limiter.inUse());
    }

    @Test
    void callReportsTimeoutsAndRejectionsAsDropsAndOtherFailuresAsNothing() throws Exception {
        SetLimit limit = new SetLimit(5);
        Limiter limiter = Limiter.builder("c", limit).build();
        assertEquals("ok", limiter.call(() -> "ok"));
        assertThrows(
                TimeoutException.class,
                () -> limiter.call(() -> {
                    throw new TimeoutException("downstream");
                }));
        assertThrows(
                SocketTimeoutException.class,
                () -> limiter.call(() -> {
                    throw new SocketTimeoutException("read");
                }));
        assertThrows(
                LimitExceededException.class,
                () -> limiter.call(() -> {
                    throw new LimitExceededException("inner", 1, 0, null);
                }));
        assertThrows(
                UncheckedIOException.class,
                () -> limiter.call(() -> {
                    throw new UncheckedIOException(new java.io.IOException("bad input"));
                }));
        assertEquals(
                List.of(0L, 1L, 1L, 1L), limit.samples.stream().map(s -> s[2]).toList());
        assertEquals(0, limiter.inUse());
    }

    @Test
    void waitersGetInFirstComeFirstServedWhenPermitsComeBackOrTheLimitRises() throws Exception {
        SetLimit limit = new SetLimit(1);
        Limiter limiter = Limiter.builder("fifo", limit).build();
        Limiter.Permit held = limiter.acquire();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        CompletableFuture<Void> release = new CompletableFuture<>();
        for (int i = 0; i < 4; i++) {
            int id = i;
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    limiter.call(() -> {
                        order.add(id);
                        return release.get();
                    });
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }));
            int expected = i + 1;
            await(() -> limiter.waiting() == expected);
        }
        limit.limit = 3; // takes effect at the next permit given back
        held.close();
        await(() -> order.size() == 3);
        // The first three in line got the three permits together; in which order their threads
        // then ran is the scheduler's affair (a 21 matrix run saw [1, 2, 0]). First come, first
        // served means the last to come is the one still waiting.
        assertEquals(java.util.Set.of(0, 1, 2), java.util.Set.copyOf(order));
        assertEquals(3, limiter.inUse());
        assertEquals(1, limiter.waiting());
        release.complete(null);
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(3, order.get(3), "the last to come was served last");
        assertEquals(0, limiter.inUse());
        assertEquals(0, limiter.waiting());
    }

    @Test
    void theWaitingRulesAreThoseOfAnyLimiter() throws Exception {
        SetLimit limit = new SetLimit(1);
        Limiter limiter = Limiter.builder("w", limit)
                .maxWaiting(1)
                .maxWait(Duration.ofMillis(20))
                .build();
        try (Limiter.Permit held = limiter.acquire()) {
            var timedOut = assertThrows(LimitExceededException.class, limiter::acquire);
            assertTrue(timedOut.timedOut());
            CompletableFuture<Limiter.Permit> outcome = new CompletableFuture<>();
            Limiter patient = Limiter.builder("w2", limit).maxWaiting(1).build();
            Limiter.Permit other = patient.acquire();
            Thread waiter = Thread.ofVirtual().start(() -> {
                try {
                    outcome.complete(patient.acquire());
                } catch (Throwable t) {
                    outcome.completeExceptionally(t);
                }
            });
            await(() -> patient.waiting() == 1);
            var full = assertThrows(LimitExceededException.class, patient::acquire);
            assertFalse(full.timedOut());
            waiter.interrupt();
            var e = assertThrows(ExecutionException.class, outcome::get);
            assertTrue(e.getCause() instanceof InterruptedException, String.valueOf(e.getCause()));
            assertEquals(0, patient.waiting());
            assertEquals(1, patient.inUse());
            other.close();
            assertEquals(0, patient.inUse());
        }
        assertEquals(0, limiter.waiting());
        assertEquals(0, limiter.inUse());
    }

    @Test
    void aLimitBelowOneStillLetsOneCallerIn() throws Exception {
        SetLimit limit = new SetLimit(0);
        Limiter limiter = Limiter.builder("zero", limit).maxWaiting(0).build();
        assertEquals(1, limiter.permits());
        try (Limiter.Permit p = limiter.acquire()) {
            assertThrows(LimitExceededException.class, limiter::acquire);
        }
    }

    @Test
    void underConcurrencyNoCallerGetsInAtOrOverTheLimitAndNoneIsLost() throws Exception {
        // A limit that climbs from 2 to 12 and falls back as samples come in; 300 callers race
        // for it. The count inside never exceeds the largest limit, and every caller gets in.
        AtomicInteger samples = new AtomicInteger();
        AdaptiveLimit sawtooth = new AdaptiveLimit() {
            @Override
            public int limit() {
                return 2 + (samples.get() / 10) % 11;
            }

            @Override
            public void onSample(long startNanos, long latencyNanos, int inFlight, boolean dropped) {
                samples.incrementAndGet();
            }
        };
        Limiter limiter = Limiter.builder("saw", sawtooth).build();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        try (var ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 300; i++) {
                ex.submit(() -> limiter.call(() -> {
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    Thread.sleep(1);
                    inside.decrementAndGet();
                    return done.incrementAndGet();
                }));
            }
        }
        assertEquals(300, done.get());
        assertEquals(300, samples.get());
        assertTrue(most.get() <= 12, "at most 12 inside, saw " + most.get());
        assertTrue(most.get() >= 2, "the limit let callers in concurrently: " + most.get());
        assertEquals(0, limiter.inUse());
        assertEquals(0, limiter.waiting());
    }
}
