package dev.weft.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * The stress tier's test of the hand-off kernel alone (excluded from the default run by its
 * name): platform and virtual threads borrow by the fast path or by queueing, hold for a random
 * moment, return, and some give up on short deadlines or get interrupted, for
 * {@code weft.stress.seconds} (default 5). Checks: a slot is never held twice; no borrower with a
 * long deadline ever times out while slots keep coming back (a lost wake-up would); nobody is
 * left waiting and every slot is free at the end.
 */
class HandOffStressTest {

    @Test
    void randomTrafficLosesNoWakeUpAndNeverSharesASlot() throws Exception {
        long seconds = Long.getLong("weft.stress.seconds", 5);
        int size = 3;
        HandOff<Integer> k = new HandOff<>("stress", size, () -> {});
        for (int i = 0; i < size; i++) {
            Slot<Integer> s = new Slot<>(null, i, System.nanoTime(), Slot.BORROWED);
            k.add(s);
        }
        AtomicReferenceArray<Thread> owner = new AtomicReferenceArray<>(size);
        AtomicInteger shared = new AtomicInteger();
        AtomicInteger lost = new AtomicInteger();
        AtomicLong ops = new AtomicLong();
        AtomicLong timeouts = new AtomicLong();
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            Thread.Builder b = i % 3 == 0 ? Thread.ofPlatform() : Thread.ofVirtual();
            ts.add(b.start(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    boolean patient = rnd.nextInt(4) != 0;
                    long wait = patient ? TimeUnit.SECONDS.toNanos(20) : rnd.nextLong(1, 200_000);
                    Slot<Integer> s;
                    try {
                        s = k.poll();
                        if (s == null) {
                            s = k.take(System.nanoTime() + wait);
                        }
                    } catch (InterruptedException e) {
                        continue;
                    }
                    if (s == null) {
                        if (patient) {
                            lost.incrementAndGet();
                        } else {
                            timeouts.incrementAndGet();
                        }
                        continue;
                    }
                    if (!owner.compareAndSet(s.resource, null, Thread.currentThread())) {
                        shared.incrementAndGet();
                    }
                    if (rnd.nextInt(8) == 0) {
                        Thread.yield(); // hold a little longer: others queue
                    }
                    owner.set(s.resource, null);
                    k.release(s);
                    ops.incrementAndGet();
                }
            }));
        }
        TestResources.joinInterruptingAtRandom(ts, end);
        assertEquals(0, shared.get(), "a slot held by two borrowers");
        assertEquals(0, lost.get(), "a patient borrower timed out: a lost wake-up (" + ops + " borrows)");
        assertEquals(0, k.waiting());
        assertEquals(size, k.count(Slot.IDLE), "every slot free at the end");
        assertTrue(ops.get() > 0);
    }
}
