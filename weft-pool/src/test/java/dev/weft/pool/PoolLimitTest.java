package dev.weft.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.limit.LimitExceededException;
import dev.weft.limit.Limiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

class PoolLimitTest {

    private static Pool<TestResources.Res> pool(TestResources res, int size, Duration maxWait) {
        return Pool.builder("db", res).maxSize(size).maxWait(maxWait).build();
    }

    @Test
    void badInputIsRefusedNamingTheFix() {
        try (var pool = pool(new TestResources(), 2, Duration.ofSeconds(1))) {
            var negative =
                    assertThrows(IllegalArgumentException.class, () -> PoolLimit.of(pool, Duration.ofMillis(-1)));
            assertTrue(negative.getMessage().contains("must not be negative"), negative.getMessage());
            assertThrows(NullPointerException.class, () -> PoolLimit.of(pool, null));
            assertThrows(NullPointerException.class, () -> PoolLimit.of(null, Duration.ZERO));
            pool.close();
            var closed =
                    assertThrows(IllegalArgumentException.class, () -> PoolLimit.limiter(pool, Duration.ofMillis(50)));
            assertTrue(closed.getMessage().contains("the pool is closed"), closed.getMessage());
        }
    }

    @Test
    void beforeAnyMeasurementTheQueueIsThePoolsSize() {
        try (var pool = pool(new TestResources(), 5, Duration.ofSeconds(1))) {
            assertEquals(10, PoolLimit.of(pool, Duration.ofMillis(50)).limit());
            assertEquals(5, PoolLimit.of(pool, Duration.ZERO).limit(), "a zero target queues nothing");
            Limiter limiter = PoolLimit.limiter(pool, Duration.ofMillis(50));
            assertEquals("db", limiter.name());
            assertEquals(0, limiter.maxWaiting(), "the queue is the pool's: the limiter sheds at once");
        }
    }

    /** Callers that hold a resource {@code holdMs} each, through the limiter, until told to stop. */
    private static final class Load implements AutoCloseable {
        final LongAdder ok = new LongAdder();
        final LongAdder shed = new LongAdder();
        final LongAdder failed = new LongAdder();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Thread> threads = new ArrayList<>();

        Load(Limiter limiter, Pool<TestResources.Res> pool, int callers, long holdMs) {
            for (int i = 0; i < callers; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    while (!stop.get()) {
                        try {
                            limiter.call(() -> {
                                try (var lease = pool.borrow()) {
                                    Thread.sleep(holdMs);
                                    return lease.get();
                                }
                            });
                            ok.increment();
                        } catch (LimitExceededException e) {
                            shed.increment();
                            sleepQuietly(1);
                        } catch (Exception e) {
                            failed.increment();
                            sleepQuietly(1);
                        }
                    }
                }));
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
        }

        private static void sleepQuietly(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos(); // a hang guard, not a speed goal
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached within the hang guard: " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void underPressureTheLimitIsThePoolPlusWhatItServesWithinTheTarget() throws Exception {
        try (var pool = pool(new TestResources(), 4, Duration.ofSeconds(5))) {
            PoolLimit limit = PoolLimit.of(pool, Duration.ofMillis(50));
            Limiter limiter = Limiter.builder("db", limit).maxWaiting(0).build();
            try (Load load = new Load(limiter, pool, 64, 10)) {
                awaitTrue(() -> limit.rate() > 0 && load.shed.sum() > 0, "a rate measured and callers shed");
                Thread.sleep(3 * PoolLimit.REFRESH_MILLIS);
            }
            // Idle now, the limit keeps the rate measured under pressure: the pool's size plus what
            // it serves in 50 ms, whatever the machine's speed. The first reading after the load
            // stopped still covers the load's last borrows: take it, then one of an idle window.
            Thread.sleep(PoolLimit.REFRESH_MILLIS + 10);
            limit.limit();
            double rate = limit.rate();
            Thread.sleep(PoolLimit.REFRESH_MILLIS + 10);
            int l = limit.limit();
            assertEquals(rate, limit.rate(), "an idle pool keeps its rate");
            assertEquals(4 + Math.round(rate * 0.050), l, "limit for a rate of " + rate + "/s");
            assertTrue(l < 64, "64 callers are not all let in: " + l);
            assertEquals(0, limiter.inUse(), "no permit leaked");
            assertTrue(limiter.rejected() > 0);
        }
    }

    @Test
    void whileTheResourcesCannotBeMadeTheLimitFallsToThePoolsSizeAndComesBack() throws Exception {
        TestResources res = new TestResources();
        // Validated on every borrow, so that a broken resource is never handed out again.
        try (var pool = Pool.builder("db", res)
                .maxSize(4)
                .maxWait(Duration.ofMillis(200))
                .validateAfter(Duration.ZERO)
                .build()) {
            PoolLimit limit = PoolLimit.of(pool, Duration.ofMillis(100));
            Limiter limiter = Limiter.builder("db", limit).maxWaiting(0).build();
            try (Load load = new Load(limiter, pool, 32, 5)) {
                awaitTrue(() -> limit.rate() > 0 && limit.limit() > 4, "a rate measured");
                // The database goes away: every connection breaks, none can be made.
                res.failCreate = new IllegalStateException("connection refused (test)");
                for (var r : res.open) {
                    r.broken = true;
                }
                pool.evictIdle();
                awaitTrue(() -> limit.limit() == 4 && limit.rate() == 0, "the limit down to the pool's size");
                long failedBefore = load.failed.sum();
                awaitTrue(() -> load.failed.sum() > failedBefore, "callers let in fail after the pool's maxWait");
                // Callers let in under the higher limit keep their permits until the pool's maxWait
                // fails them; after that, no more than the pool's size is let in.
                awaitTrue(() -> limiter.inUse() <= 4, "the callers let in before drained");
                for (int i = 0; i < 5; i++) {
                    assertTrue(limiter.inUse() <= 4, "no more than the pool's size waits: " + limiter);
                    Thread.sleep(20);
                }
                // It comes back.
                res.failCreate = null;
                awaitTrue(() -> limit.limit() > 4 && load.ok.sum() > 0, "the queue back once borrows succeed");
            }
            assertEquals(0, limiter.inUse(), "no permit leaked");
        }
    }

    @Test
    void aPoolClosedUnderTheLimitFailsCallersAtOnceAndLeaksNoPermit() throws Exception {
        var pool = pool(new TestResources(), 2, Duration.ofSeconds(30));
        PoolLimit limit = PoolLimit.of(pool, Duration.ofMillis(50));
        Limiter limiter = Limiter.builder("db", limit).maxWaiting(0).build();
        int before = limit.limit();
        pool.close();
        Thread.sleep(PoolLimit.REFRESH_MILLIS + 10);
        assertEquals(before, limit.limit(), "a closed pool leaves the limit where it was");
        assertThrows(
                PoolClosedException.class,
                () -> limiter.call(() -> {
                    try (var lease = pool.borrow()) {
                        return lease.get();
                    }
                }));
        assertEquals(0, limiter.inUse(), "no permit leaked");
    }
}
