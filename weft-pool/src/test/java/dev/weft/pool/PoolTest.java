package dev.weft.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PoolTest {

    private static Pool.Builder<TestResources.Res> pool(TestResources f, int max) {
        return Pool.builder("test", f)
                .maxSize(max)
                .maxWait(Duration.ofSeconds(10))
                .closeTimeout(Duration.ofSeconds(5));
    }

    private static void await(String what, java.util.function.BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void borrowsOfDestroyedResourcesStayCounted() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 2).build()) {
            for (int i = 0; i < 3; i++) {
                p.borrow().close();
            }
            assertEquals(3, p.stats().borrows());
            assertEquals(1, p.evictIdle());
            p.borrow().close();
            PoolStats s = p.stats();
            assertEquals(4, s.borrows(), "three on the evicted resource, one on its successor: " + s);
            assertEquals(2, s.created());
        }
    }

    @Test
    void aResourceIsCountedAsCreatedBeforeItsBorrowerHasIt() throws Exception {
        // The creator hands the new resource to the parked borrower; the borrower may run on the
        // other core before the creator does again, so the count must come first. Repeated, since
        // each round is one chance for that order.
        for (int round = 0; round < 300; round++) {
            try (Pool<TestResources.Res> p = pool(new TestResources(), 1).build();
                    Lease<TestResources.Res> l = p.borrow()) {
                assertEquals(1, p.stats().created(), "round " + round + ": " + p.stats());
            }
        }
    }

    @Test
    void borrowReturnsAndReusesOneResource() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 2).build()) {
            TestResources.Res first;
            try (Lease<TestResources.Res> l = p.borrow()) {
                first = l.get();
                first.dirty = 7;
                assertEquals(1, p.stats().inUse());
            }
            assertEquals(0, first.dirty, "reset ran on return");
            try (Lease<TestResources.Res> l = p.borrow()) {
                assertSame(first, l.get());
            }
            PoolStats s = p.stats();
            assertEquals(1, s.created());
            assertEquals(2, s.borrows());
            assertEquals(1, s.idle());
            assertEquals(0, s.inUse());
        }
        assertEquals(1, f.destroyed.get(), "close destroyed the idle resource");
    }

    @Test
    void aLeaseEndsOnce() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 1).build()) {
            Lease<TestResources.Res> l = p.borrow();
            l.close();
            l.close();
            l.invalidate();
            IllegalStateException e = assertThrows(IllegalStateException.class, l::get);
            assertTrue(e.getMessage().contains("\"test\""), e.getMessage());
            assertEquals(1, p.stats().idle());
            assertEquals(0, f.destroyed.get());
        }
    }

    @Test
    void invalidateDestroysAndTheNextBorrowGetsAFreshOne() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 1).build()) {
            Lease<TestResources.Res> l = p.borrow();
            TestResources.Res r = l.get();
            l.invalidate();
            assertTrue(r.destroyed);
            try (Lease<TestResources.Res> l2 = p.borrow()) {
                assertNotSame(r, l2.get());
            }
            assertEquals(2, p.stats().created());
            assertEquals(1, p.stats().destroyed());
        }
    }

    @Test
    void timeoutNamesThePoolItsSizeAndTheWait() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 1).build();
                Lease<TestResources.Res> held = p.borrow()) {
            PoolTimeoutException e = assertThrows(PoolTimeoutException.class, () -> p.borrow(Duration.ofMillis(50)));
            assertTrue(e.getMessage().contains("pool \"test\""), e.getMessage());
            assertTrue(e.getMessage().contains("maxSize 1"), e.getMessage());
            assertTrue(e.getMessage().contains("1 in use"), e.getMessage());
            assertTrue(e.waited().toMillis() >= 50, e.waited().toString());
            assertEquals("test", e.pool());
            assertEquals(1, p.stats().timeouts());
            assertEquals(0, p.stats().waiting());
        }
    }

    @Test
    void waitersAreServedFirstComeFirstServed() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 1).build()) {
            Lease<TestResources.Res> held = p.borrow();
            BlockingQueue<Integer> order = new LinkedBlockingQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                int n = i;
                threads.add(Thread.ofVirtual().start(() -> {
                    try (Lease<TestResources.Res> l = p.borrow()) {
                        order.add(n);
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }));
                int expected = i + 1;
                await(expected + " waiting", () -> p.stats().waiting() == expected);
            }
            held.close();
            for (Thread t : threads) {
                t.join();
            }
            List<Integer> got = new ArrayList<>(order);
            List<Integer> want = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                want.add(i);
            }
            assertEquals(want, got);
            assertEquals(1, p.stats().created());
        }
    }

    @Test
    void anInterruptedWaiterLeavesNothingBehind() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 1).build()) {
            Lease<TestResources.Res> held = p.borrow();
            AtomicInteger interrupted = new AtomicInteger();
            Thread waiter = Thread.ofVirtual().start(() -> {
                try {
                    p.borrow().close();
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                }
            });
            await("one waiting", () -> p.stats().waiting() == 1);
            waiter.interrupt();
            waiter.join();
            assertEquals(1, interrupted.get());
            assertEquals(0, p.stats().waiting());
            held.close();
            assertEquals(1, p.stats().idle());
            try (Lease<TestResources.Res> l = p.borrow(Duration.ZERO)) {
                assertEquals(1, p.stats().inUse());
            }
            assertEquals(1, p.stats().created());
        }
    }

    @Test
    void interruptsRacingWithReturnsNeverLoseAResource() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 2).build()) {
            for (int round = 0; round < 200; round++) {
                Lease<TestResources.Res> a = p.borrow();
                Lease<TestResources.Res> b = p.borrow();
                Thread w = Thread.ofVirtual().start(() -> {
                    try {
                        p.borrow().close();
                    } catch (InterruptedException ignored) {
                        // either outcome is fine; what matters is that nothing is lost
                    }
                });
                await("waiting", () -> p.stats().waiting() == 1);
                Thread closer = Thread.ofVirtual().start(a::close);
                w.interrupt();
                closer.join();
                w.join();
                b.close();
                PoolStats s = p.stats();
                assertEquals(0, s.inUse(), "round " + round + ": " + s);
                assertEquals(2, s.idle(), "round " + round + ": " + s);
            }
            assertEquals(2, p.stats().created());
        }
    }

    @Test
    void closingWakesEveryWaiterAtOnceWithAClearError() throws Exception {
        TestResources f = new TestResources();
        Pool<TestResources.Res> p = pool(f, 1).maxWait(Duration.ofMinutes(5)).build();
        Lease<TestResources.Res> held = p.borrow();
        java.util.Queue<Throwable> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(1000);
        for (int i = 0; i < 1000; i++) {
            Thread.ofVirtual().start(() -> {
                try {
                    p.borrow().close();
                } catch (Throwable t) {
                    failures.add(t);
                } finally {
                    done.countDown();
                }
            });
        }
        await("1000 waiting", () -> p.stats().waiting() == 1000);
        Thread closer = Thread.ofVirtual().start(() -> {
            try {
                p.close(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        assertTrue(done.await(20, TimeUnit.SECONDS), "every waiter got its answer while a lease was still out");
        assertEquals(1000, failures.size());
        for (Throwable t : failures) {
            PoolClosedException e = assertInstanceOf(PoolClosedException.class, t);
            assertTrue(e.getMessage().contains("\"test\" was closed"), e.getMessage());
        }
        assertTrue(closer.isAlive(), "close still waits for the borrowed resource");
        held.close();
        closer.join();
        assertEquals(f.created.get(), f.destroyed.get());
        assertThrows(PoolClosedException.class, p::borrow);
    }

    @Test
    void closeDestroysWhatIsStillBorrowedAfterItsTimeout() throws Exception {
        TestResources f = new TestResources();
        Pool<TestResources.Res> p = pool(f, 2).build();
        Lease<TestResources.Res> kept = p.borrow();
        assertFalse(p.close(Duration.ofMillis(50)));
        assertTrue(kept.get().destroyed);
        kept.close();
        assertEquals(1, f.destroyed.get(), "the late return did not destroy it twice");
    }

    @Test
    void creationRunsOffTheBorrowerAndIsBounded() throws Exception {
        TestResources f = new TestResources();
        f.createDelayMs = 50;
        try (Pool<TestResources.Res> p = pool(f, 10).maxCreating(2).build()) {
            List<Thread> ts = new ArrayList<>();
            Set<String> creators = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 10; i++) {
                ts.add(Thread.ofVirtual().start(() -> {
                    try (Lease<TestResources.Res> l = p.borrow()) {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }));
            }
            for (Thread t : ts) {
                t.join();
            }
            assertEquals(2, f.maxCreatingSeen.get());
            assertTrue(p.stats().created() <= 10);
        }
    }

    @Test
    void minIdleIsKeptReady() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 5).minIdle(3).build()) {
            await("3 idle", () -> p.stats().idle() == 3);
            Lease<TestResources.Res> a = p.borrow();
            await("3 idle again", () -> p.stats().idle() == 3);
            assertEquals(4, p.stats().created());
            a.close();
        }
    }

    @Test
    void aBrokenIdleResourceIsValidatedAwayAndReplaced() throws Exception {
        TestResources f = new TestResources();
        Duration validateAfter = Duration.ofMillis(200);
        try (Pool<TestResources.Res> p = pool(f, 1).validateAfter(validateAfter).build()) {
            // Within validateAfter of its return a resource is trusted: handed out again unvalidated,
            // broken or not. The window counts from the return, so an attempt is conclusive only if
            // the next borrow came back within it, as measured here; a stall of this thread past it
            // (a loaded machine) makes the attempt say nothing, and it is made again.
            TestResources.Res r = null;
            boolean trusted = false;
            for (int attempt = 0; attempt < 20 && !trusted; attempt++) {
                Lease<TestResources.Res> first = p.borrow();
                r = first.get();
                int validated = f.validated.get();
                long returned = System.nanoTime(); // the pool's window starts at or after this
                first.close();
                r.broken = true;
                try (Lease<TestResources.Res> l = p.borrow()) {
                    if (System.nanoTime() - returned < validateAfter.toNanos()) {
                        assertSame(r, l.get(), "within validateAfter the resource is trusted");
                        assertEquals(validated, f.validated.get(), "and not validated");
                        trusted = true;
                    }
                }
            }
            assertTrue(trusted, "every one of 20 attempts stalled past validateAfter (" + validateAfter + ")");
            int validated = f.validated.get();
            Thread.sleep(validateAfter.toMillis() + 20); // past the window (a lower bound)
            try (Lease<TestResources.Res> l = p.borrow()) {
                assertNotSame(r, l.get());
            }
            assertEquals(validated + 1, f.validated.get());
            assertTrue(r.destroyed);
        }
    }

    @Test
    void oldAndIdleResourcesAreEvicted() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p =
                pool(f, 3).idleTimeout(Duration.ofMillis(100)).build()) {
            List<Lease<TestResources.Res>> ls = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ls.add(p.borrow());
            }
            ls.forEach(Lease::close);
            await("idle ones evicted", () -> p.stats().idle() == 0);
            assertEquals(3, f.destroyed.get());
        }
        TestResources g = new TestResources();
        try (Pool<TestResources.Res> p =
                pool(g, 1).maxLifetime(Duration.ofMillis(100)).build()) {
            TestResources.Res first;
            try (Lease<TestResources.Res> l = p.borrow()) {
                first = l.get();
                Thread.sleep(150);
            }
            // Retired by the housekeeper while borrowed (its return destroys it) or, if the
            // housekeeper ran late, evicted by it once idle: either way, soon.
            await("returned past maxLifetime: destroyed", () -> first.destroyed);
        }
    }

    /**
     * Returns read no clock (decision 0608): the housekeeper's passes decide idleness and age.
     * Driven here at chosen times; the options are long, so its own passes stay out of the way.
     */
    @Test
    void theHousekeeperJudgesIdlenessByWhatItsPassesSee() throws Exception {
        TestResources f = new TestResources();
        long hour = Duration.ofHours(1).toNanos();
        try (Pool<TestResources.Res> p = pool(f, 2)
                .idleTimeout(Duration.ofHours(1))
                .maxLifetime(Duration.ofHours(4))
                .build()) {
            Lease<TestResources.Res> a = p.borrow();
            Lease<TestResources.Res> b = p.borrow();
            TestResources.Res ra = a.get();
            a.close();
            b.close();
            long t = System.nanoTime();
            p.housekeeper.evict(t); // both first seen idle now
            p.housekeeper.evict(t + hour - 1);
            assertEquals(2, p.stats().idle(), "idle for less than idleTimeout, as the passes saw it");
            try (Lease<TestResources.Res> again = p.borrow()) {
                assertSame(ra, again.get(), "the slot it returned last");
            }
            p.housekeeper.evict(t + hour);
            assertEquals(1, p.stats().idle(), "the one borrowed since starts its idle time again");
            assertFalse(ra.destroyed);
            assertEquals(1, f.destroyed.get(), "the other one, idle an hour: evicted");
            p.housekeeper.evict(t + 2 * hour - 1);
            assertEquals(1, p.stats().idle());
            p.housekeeper.evict(t + 2 * hour);
            assertEquals(0, p.stats().idle(), "idle an hour since the pass after its borrow");
            assertTrue(ra.destroyed);
        }
    }

    @Test
    void aResourcePastMaxLifetimeWhileBorrowedIsDestroyedOnReturn() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p =
                pool(f, 1).maxLifetime(Duration.ofHours(1)).build()) {
            Lease<TestResources.Res> l = p.borrow();
            TestResources.Res r = l.get();
            p.housekeeper.evict(System.nanoTime() + Duration.ofHours(2).toNanos());
            assertFalse(r.destroyed, "never while borrowed");
            l.close();
            assertTrue(r.destroyed, "retired by the housekeeper: its return destroyed it");
            try (Lease<TestResources.Res> next = p.borrow()) {
                assertNotSame(r, next.get());
            }
        }
    }

    @Test
    void aResourceHeldLongerThanValidateAfterIsValidatedAtItsNextBorrow() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p =
                pool(f, 1).validateAfter(Duration.ofMillis(50)).build()) {
            try (Lease<TestResources.Res> l = p.borrow()) {
                Thread.sleep(100);
            }
            int before = f.validated.get();
            p.borrow().close();
            assertEquals(before + 1, f.validated.get(), "its last borrow began more than validateAfter ago");
        }
        TestResources g = new TestResources();
        try (Pool<TestResources.Res> p =
                pool(g, 1).validateAfter(Duration.ofHours(1)).build()) {
            p.borrow().close();
            p.borrow().close();
            assertEquals(0, g.validated.get(), "borrowed again well within validateAfter");
        }
    }

    @Test
    void aLeakIsReportedWithTheBorrowersStack() throws Exception {
        TestResources f = new TestResources();
        BlockingQueue<LeakReport> reports = new LinkedBlockingQueue<>();
        try (Pool<TestResources.Res> p = pool(f, 1)
                .leakThreshold(Duration.ofMillis(50))
                .onLeak(reports::add)
                .build()) {
            Lease<TestResources.Res> l = p.borrow();
            LeakReport r = reports.poll(10, TimeUnit.SECONDS);
            assertTrue(r != null, "a leak report");
            assertEquals("test", r.pool());
            assertTrue(r.held().toMillis() >= 50);
            assertTrue(
                    r.stack().stream().anyMatch(e -> e.getMethodName().equals("aLeakIsReportedWithTheBorrowersStack")),
                    r.toText());
            assertTrue(r.toText().contains("leakThreshold"), r.toText());
            Thread.sleep(100);
            assertTrue(reports.isEmpty(), "reported once per borrow");
            assertEquals(1, p.stats().leaks());
            l.close();
        }
    }

    @Test
    void failedCreationsAreRetriedAndNamedInTheTimeout() throws Exception {
        TestResources f = new TestResources();
        f.failCreate = new IllegalStateException("database down");
        try (Pool<TestResources.Res> p = pool(f, 2).build()) {
            // The creator retries after 10, 20, 40... ms while the borrower waits: a second's wait
            // holds several retries, where 200 ms left a loaded machine room for one failure only.
            PoolTimeoutException e = assertThrows(PoolTimeoutException.class, () -> p.borrow(Duration.ofSeconds(1)));
            assertTrue(e.getMessage().contains("database down"), e.getMessage());
            assertEquals("database down", e.getCause().getMessage());
            assertTrue(p.stats().createFailures() >= 2, "retried: " + p.stats());
            f.failCreate = null;
            try (Lease<TestResources.Res> l = p.borrow()) {
                assertFalse(l.get().broken);
            }
            await("no creator left", () -> p.stats().creating() == 0);
        }
    }

    @Test
    void statsCountWaitsAsPercentiles() throws Exception {
        TestResources f = new TestResources();
        try (Pool<TestResources.Res> p = pool(f, 1).build()) {
            Lease<TestResources.Res> l = p.borrow();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    p.borrow().close();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            await("waiting", () -> p.stats().waiting() == 1);
            Thread.sleep(100);
            l.close();
            t.join();
            PoolStats s = p.stats();
            assertTrue(s.waitMax().toMillis() >= 90, s.toString());
            assertEquals(2L, s.borrows());
            assertEquals(2L, s.toMap().get("borrows"));
            assertTrue(s.toMap().containsKey("wait_p99_ms"));
        }
    }

    @Test
    void badOptionsAreRejectedWithTheirName() {
        TestResources f = new TestResources();
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> Pool.builder("x", f).maxSize(0));
        assertTrue(e.getMessage().contains("maxSize"));
        e = assertThrows(
                IllegalArgumentException.class,
                () -> Pool.builder("x", f).maxSize(2).minIdle(3).build());
        assertTrue(e.getMessage().contains("minIdle"));
        e = assertThrows(
                IllegalArgumentException.class, () -> Pool.builder("x", f).maxWait(Duration.ofMillis(-1)));
        assertTrue(e.getMessage().contains("maxWait"));
        assertThrows(IllegalArgumentException.class, () -> Pool.builder(" ", f));
    }

    @Test
    void histogramBucketsBoundTheirValues() {
        for (long v : new long[] {0, 1, 7, 8, 9, 15, 16, 1000, 123_456_789, Long.MAX_VALUE / 4}) {
            int i = WaitHistogram.index(v);
            assertTrue(WaitHistogram.upper(i) >= v, v + " in bucket " + i);
            assertTrue(i == 0 || WaitHistogram.upper(i - 1) < v, v + " in bucket " + i);
        }
    }
}
