package dev.weft.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The hand-off kernel alone, driven step by step: the barging rule and its bound (decision 0603). */
class HandOffTest {

    private static final long LONG = TimeUnit.MINUTES.toNanos(1);

    private static Slot<String> slot(HandOff<String> k, String name) {
        Slot<String> s = new Slot<>(null, name, System.nanoTime(), Slot.BORROWED);
        assertTrue(k.add(s));
        return s;
    }

    private static void awaitWaiting(HandOff<?> k, int n) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (k.waiting() != n) {
            assertTrue(System.nanoTime() < end, "timed out waiting for " + n + " waiters; " + k.waiting() + " now");
            Thread.sleep(1);
        }
    }

    @Test
    void withNobodyWaitingTheFastPathClaimsFreeSlotsInOrder() {
        HandOff<String> k = new HandOff<>("k", 2, () -> {});
        Slot<String> a = slot(k, "a");
        Slot<String> b = slot(k, "b");
        assertSame(a, k.poll());
        assertSame(b, k.poll());
        assertNull(k.poll(), "both borrowed");
        assertTrue(!k.release(a));
        assertSame(a, k.poll(), "the first free slot again");
    }

    @Test
    void aPlatformThreadScansFromTheSlotItClaimedLastAVirtualThreadFromTheFirst() throws Exception {
        HandOff<String> k = new HandOff<>("k", 2, () -> {});
        Slot<String> a = slot(k, "a");
        Slot<String> b = slot(k, "b");
        Slot<String> c = slot(k, "c");
        assertSame(a, k.poll());
        assertSame(b, k.poll());
        assertTrue(!k.release(a));
        assertTrue(!k.release(b));
        assertSame(b, k.poll(), "this platform thread's last slot first, though a is free too");
        assertSame(c, k.poll(), "then on from there");
        assertSame(a, k.poll(), "and round to the start");
        assertTrue(!k.release(a));
        assertTrue(!k.release(c));
        CompletableFuture<Slot<String>> virtual = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> virtual.complete(k.poll())).join();
        assertSame(a, virtual.get(), "a virtual thread keeps no hint: the first free slot");
        CompletableFuture<Slot<String>> other = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> other.complete(k.poll())).join();
        assertSame(c, other.get(), "another platform thread starts at the first slot: c is the only one free");
    }

    @Test
    void aVirtualThreadTakesTheSlotItReturnedLastAgainANewOneTheFirstFreeSlot() throws Exception {
        HandOff<String> k = new HandOff<>("k", 2, () -> {});
        Slot<String> a = slot(k, "a");
        Slot<String> b = slot(k, "b");
        CompletableFuture<String> steps = new CompletableFuture<>();
        Thread.ofVirtual()
                .start(() -> {
                    Slot<String> first = k.poll(); // a
                    Slot<String> second = k.poll(); // b
                    k.release(first);
                    k.release(second); // both free; b returned last
                    Slot<String> again = k.poll();
                    k.release(again);
                    steps.complete(first.resource + second.resource + again.resource);
                })
                .join();
        assertEquals("abb", steps.get(), "b, the slot it returned last, though a comes first in the scan");
        CompletableFuture<Slot<String>> mine = new CompletableFuture<>();
        Thread.ofVirtual()
                .start(() -> {
                    Slot<String> s = k.poll(); // a, the first free slot
                    k.release(s);
                    Slot<String> held = k.poll(); // a again
                    Slot<String> next = k.poll(); // b: a is held
                    k.release(held);
                    k.release(next); // b returned last
                    mine.complete(k.poll());
                })
                .join();
        assertSame(b, mine.get(), "b, returned last, though a comes first in the scan");
        assertTrue(!k.release(b));
        CompletableFuture<Slot<String>> fresh = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> fresh.complete(k.poll())).join();
        assertSame(a, fresh.get(), "a virtual thread that returned nothing starts at the first free slot");
        assertTrue(!k.release(a));
    }

    @Test
    void aRemovedSlotIsNotTakenAgainByTheThreadThatReturnedIt() throws Exception {
        HandOff<String> k = new HandOff<>("k", 2, () -> {});
        Slot<String> a = slot(k, "a");
        Slot<String> b = slot(k, "b");
        CompletableFuture<Slot<String>> after = new CompletableFuture<>();
        Thread.ofVirtual()
                .start(() -> {
                    Slot<String> first = k.poll(); // a
                    Slot<String> second = k.poll(); // b
                    k.release(first);
                    k.release(second); // b returned last
                    assertTrue(k.remove(second, Slot.IDLE));
                    after.complete(k.poll());
                })
                .join();
        assertSame(a, after.get(), "b was removed: the scan's first free slot");
        assertEquals(Slot.REMOVED, b.state());
    }

    @Test
    void theHeadWaiterIsOvertakenAtMostBoundTimes() throws Exception {
        for (int bound = 0; bound <= 3; bound++) {
            AtomicInteger demand = new AtomicInteger();
            HandOff<String> k = new HandOff<>("k", bound, demand::incrementAndGet);
            slot(k, "only");
            Slot<String> held = k.poll();
            CompletableFuture<Slot<String>> waiter = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return k.take(System.nanoTime() + LONG);
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    },
                    r -> Thread.ofVirtual().start(r));
            awaitWaiting(k, 1);
            assertEquals(1, demand.get(), "the pool heard that a borrower waits");
            int barges = 0;
            for (int i = 0; i < bound + 2 && held != null; i++) {
                k.release(held);
                held = k.poll(); // a borrower arriving after the waiter
                if (held != null) {
                    barges++;
                }
            }
            if (held != null) {
                k.release(held);
            }
            Slot<String> got = waiter.get(30, TimeUnit.SECONDS);
            assertNotNull(got);
            assertTrue(barges <= bound, "bound " + bound + ": overtaken " + barges + " times");
            assertEquals(0, k.waiting());
            assertNull(k.poll(), "the waiter holds the only slot");
        }
    }

    @Test
    void waitersAmongThemselvesAreServedInArrivalOrder() throws Exception {
        HandOff<String> k = new HandOff<>("k", 0, () -> {});
        slot(k, "only");
        Slot<String> held = k.poll();
        StringBuilder order = new StringBuilder();
        Thread[] ts = new Thread[5];
        for (int i = 0; i < ts.length; i++) {
            int n = i;
            ts[i] = Thread.ofVirtual().start(() -> {
                try {
                    Slot<String> s = k.take(System.nanoTime() + LONG);
                    synchronized (order) {
                        order.append(n);
                    }
                    k.release(s);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            awaitWaiting(k, i + 1);
        }
        k.release(held);
        for (Thread t : ts) {
            t.join();
        }
        assertEquals("01234", order.toString());
    }

    @Test
    void aWaiterThatTimesOutLeavesTheQueueAndTheNextOneIsServed() throws Exception {
        HandOff<String> k = new HandOff<>("k", 1, () -> {});
        slot(k, "only");
        Slot<String> held = k.poll();
        assertNull(k.take(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20)), "nothing came free");
        assertEquals(0, k.waiting());
        k.release(held);
        assertNotNull(k.poll());
    }

    @Test
    void closeFailsWaitersRemovesFreeSlotsAndTakesLateReturnsOut() throws Exception {
        HandOff<String> k = new HandOff<>("k", 1, () -> {});
        Slot<String> free = slot(k, "free");
        slot(k, "held");
        Slot<String> first = k.poll();
        Slot<String> held = k.poll();
        assertSame(free, first);
        k.release(first); // free again; "held" stays out
        CompletableFuture<Object> waiter = new CompletableFuture<>();
        HandOff<String> k2 = new HandOff<>("k2", 1, () -> {});
        slot(k2, "only");
        Slot<String> held2 = k2.poll();
        Thread.ofVirtual().start(() -> {
            try {
                waiter.complete(k2.take(System.nanoTime() + LONG));
            } catch (Throwable e) {
                waiter.complete(e);
            }
        });
        awaitWaiting(k2, 1);
        assertEquals(0, k2.close().size(), "no free slot in k2");
        assertTrue(waiter.get(30, TimeUnit.SECONDS) instanceof PoolClosedException, "the waiter failed at once");
        assertTrue(k2.release(held2), "a return after close: the returner destroys it");
        assertEquals(0, k2.count(Slot.IDLE));

        assertEquals(java.util.List.of(free), k.close(), "the free slot is removed for destruction");
        assertTrue(k.release(held));
        assertEquals(0, k.slots().length);
        assertNull(k.poll());
    }
}
