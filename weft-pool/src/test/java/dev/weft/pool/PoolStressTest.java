package dev.weft.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The stress tier's pool test (excluded from the default run by its name): many virtual threads
 * borrow, hold, return and invalidate at random while others are interrupted and borrows time
 * out, for {@code weft.stress.seconds} (default 5); then the pool is closed under load. Checks:
 * never more than maxSize open, never one resource held twice, nothing leaked after close.
 */
class PoolStressTest {

    @Test
    void randomTrafficKeepsTheInvariants() throws Exception {
        long seconds = Long.getLong("weft.stress.seconds", 5);
        TestResources f = new TestResources();
        int max = 8;
        Pool<TestResources.Res> p = Pool.builder("stress", f)
                .maxSize(max)
                .minIdle(2)
                .maxCreating(3)
                .maxWait(Duration.ofMillis(50))
                .validateAfter(Duration.ofMillis(1))
                .idleTimeout(Duration.ofMillis(200))
                .maxLifetime(Duration.ofMillis(500))
                .closeTimeout(Duration.ofSeconds(5))
                .build();
        Map<TestResources.Res, Boolean> held = new ConcurrentHashMap<>();
        AtomicInteger shared = new AtomicInteger();
        AtomicInteger overMax = new AtomicInteger();
        AtomicLong ops = new AtomicLong();
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ts.add(Thread.ofVirtual().start(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    try (Lease<TestResources.Res> l = p.borrow()) {
                        if (held.putIfAbsent(l.get(), true) != null) {
                            shared.incrementAndGet();
                        }
                        if (f.open.size() > max) {
                            overMax.incrementAndGet();
                        }
                        if (rnd.nextInt(20) == 0) {
                            l.get().broken = true;
                        }
                        try {
                            Thread.sleep(rnd.nextInt(3));
                        } finally {
                            held.remove(l.get()); // before the lease returns it, however the sleep ends
                        }
                        if (rnd.nextInt(10) == 0) {
                            l.invalidate();
                        }
                        ops.incrementAndGet();
                    } catch (PoolTimeoutException expected) {
                        // busy: try again
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (PoolClosedException e) {
                        return;
                    }
                    if (Thread.interrupted()) {
                        continue; // an interrupt from the stressor: keep going
                    }
                }
            }));
        }
        TestResources.joinInterruptingAtRandom(ts, end);
        assertTrue(p.close(Duration.ofSeconds(10)));
        assertEquals(0, shared.get(), "a resource was held by two borrowers");
        assertEquals(0, overMax.get(), "more than maxSize resources open");
        assertTrue(ops.get() > 1000, "traffic ran: " + ops.get());
        assertEquals(f.created.get(), f.destroyed.get(), "every resource destroyed after close: " + p.stats());
        assertEquals(0, f.open.size());
    }
}
