package dev.weft.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Random borrow / return / invalidate / close sequences: the pool never has more than maxSize
 * resources open and never hands one resource to two borrowers.
 */
class PoolPropertyTest {

    enum Op {
        BORROW,
        RETURN,
        INVALIDATE,
        CLOSE
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(10, Arbitraries.just(Op.BORROW)),
                        net.jqwik.api.Tuple.of(7, Arbitraries.just(Op.RETURN)),
                        net.jqwik.api.Tuple.of(3, Arbitraries.just(Op.INVALIDATE)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(Op.CLOSE)))
                .list()
                .ofMinSize(1)
                .ofMaxSize(60);
    }

    @Property(tries = 60)
    void sequencesKeepTheInvariants(
            @ForAll("ops") List<Op> ops,
            @ForAll @IntRange(min = 1, max = 4) int max,
            @ForAll @IntRange(min = 0, max = 1000) int pick)
            throws Exception {
        TestResources f = new TestResources();
        Pool<TestResources.Res> p = Pool.builder("prop", f)
                .maxSize(max)
                .validateAfter(Duration.ZERO)
                .closeTimeout(Duration.ZERO)
                .build();
        List<Lease<TestResources.Res>> held = new ArrayList<>();
        boolean closed = false;
        int i = pick;
        for (Op op : ops) {
            i++;
            switch (op) {
                case BORROW -> {
                    try {
                        held.add(p.borrow(held.size() < max ? Duration.ofSeconds(5) : Duration.ZERO));
                        assertTrue(!closed, "borrowed from a closed pool");
                        assertTrue(held.size() <= max, "more leases than maxSize");
                    } catch (PoolTimeoutException e) {
                        assertEquals(max, held.size(), "timed out although a resource was free: " + e.getMessage());
                    } catch (PoolClosedException e) {
                        assertTrue(closed);
                    }
                }
                case RETURN, INVALIDATE -> {
                    if (!held.isEmpty()) {
                        Lease<TestResources.Res> l = held.remove(i % held.size());
                        if (op == Op.RETURN) {
                            l.close();
                        } else {
                            l.invalidate();
                        }
                    }
                }
                case CLOSE -> {
                    p.close(Duration.ZERO);
                    closed = true;
                }
            }
            Map<TestResources.Res, Boolean> distinct = new IdentityHashMap<>();
            for (Lease<TestResources.Res> l : held) {
                if (!l.isEnded() && !closed) {
                    assertTrue(distinct.put(l.get(), true) == null, "one resource held by two leases");
                    assertTrue(!l.get().destroyed, "a borrower holds a destroyed resource");
                }
            }
            PoolStats s = p.stats();
            assertTrue(s.open() <= max, "open " + s.open() + " > maxSize " + max);
            assertTrue(f.open.size() <= max, "factory sees " + f.open.size() + " open > maxSize " + max);
        }
        held.forEach(Lease::close);
        p.close(Duration.ofSeconds(5));
        assertEquals(0, f.open.size(), "every resource destroyed after close");
        assertEquals(f.created.get(), f.destroyed.get());
    }

    @Property(tries = 10)
    void concurrentBorrowersNeverShareAResource(
            @ForAll @IntRange(min = 1, max = 5) int max, @ForAll @IntRange(min = 2, max = 40) int threads)
            throws Exception {
        TestResources f = new TestResources();
        Pool<TestResources.Res> p = Pool.builder("prop", f)
                .maxSize(max)
                .maxCreating(2)
                .validateAfter(Duration.ZERO)
                .maxWait(Duration.ofSeconds(30))
                .build();
        Map<TestResources.Res, Thread> owners = new ConcurrentHashMap<>();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger maxOpen = new AtomicInteger();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            ts.add(Thread.ofVirtual().start(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int k = 0; k < 50; k++) {
                    try {
                        Lease<TestResources.Res> l = p.borrow();
                        if (owners.putIfAbsent(l.get(), Thread.currentThread()) != null) {
                            violations.incrementAndGet();
                        }
                        maxOpen.accumulateAndGet(f.open.size(), Math::max);
                        if (rnd.nextInt(4) == 0) {
                            Thread.yield();
                        }
                        owners.remove(l.get());
                        if (rnd.nextInt(10) == 0) {
                            l.invalidate();
                        } else {
                            l.close();
                        }
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            }));
        }
        for (Thread t : ts) {
            t.join();
        }
        assertTrue(p.close(Duration.ofSeconds(5)));
        assertEquals(0, violations.get(), "a resource was held by two borrowers");
        assertTrue(maxOpen.get() <= max, "open " + maxOpen.get() + " > " + max);
        assertEquals(f.created.get(), f.destroyed.get());
    }
}
