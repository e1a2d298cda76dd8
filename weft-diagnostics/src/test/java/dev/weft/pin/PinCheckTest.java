package dev.weft.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PinCheckTest {

    static final ContextKey<String> WHO = ContextKey.of("who");

    static void pin() {
        PinProbe.pin(Duration.ofMillis(5)); // pins the calling thread when it is virtual
    }

    @Test
    void aCaptureRunsTheBodyOnANamedVirtualThreadWithTheCallersKeys() throws Throwable {
        AtomicReference<Thread> ran = new AtomicReference<>();
        AtomicReference<String> saw = new AtomicReference<>();
        PinReport r = Context.where(WHO, "ann")
                .call(() -> PinCheck.capture(
                        () -> {
                            ran.set(Thread.currentThread());
                            saw.set(WHO.get());
                            pin();
                        },
                        PinCheck.BodyThread.VIRTUAL));
        assertEquals(1, r.pins(), r.toText());
        assertTrue(ran.get().isVirtual());
        assertTrue(ran.get().getName().startsWith("weft-pin-check-"), ran.get().getName());
        assertEquals("ann", saw.get());
        assertEquals(
                0,
                PinCheck.capture(PinCheckTest::pin, PinCheck.BodyThread.CALLER).pins(),
                "the test's platform thread only blocks");
    }

    /**
     * JDK 21-23: Object.wait inside synchronized holds the carrier (the scheduler compensates with
     * another carrier), and JFR records no pin. JDK 24+: the waiter unmounts. Either way a check
     * counts 0 pins; what tells the JDKs apart is how many carriers the waiters hold.
     */
    @Test
    @Timeout(30)
    void objectWaitHoldsACarrierBefore24WithoutAnyPinEvent() throws Throwable {
        int waiters = Runtime.getRuntime().availableProcessors() + 2;
        CountDownLatch waiting = new CountDownLatch(waiters);
        java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
        Object[] locks = new Object[waiters];
        Thread[] threads = new Thread[waiters];
        java.util.Set<String> carriers = java.util.concurrent.ConcurrentHashMap.newKeySet();
        PinReport r = PinCheck.capture(
                () -> {
                    for (int i = 0; i < waiters; i++) {
                        Object lock = locks[i] = new Object();
                        threads[i] = Thread.ofVirtual().start(() -> {
                            synchronized (lock) {
                                waiting.countDown();
                                try {
                                    while (!released.get()) {
                                        lock.wait();
                                    }
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                        });
                    }
                    waiting.await();
                    // Until every waiter is in Object.wait (the hang guard is the test's timeout): a
                    // fixed 100 ms could end first on a loaded machine, and a waiter not yet waiting
                    // would not show its carrier. WAITING is reported once a JDK 24+ waiter has
                    // unmounted, and while a JDK 21-23 one waits pinned to its carrier.
                    for (Thread t : threads) {
                        while (t.getState() != Thread.State.WAITING) {
                            Thread.sleep(1);
                        }
                    }
                    for (Thread t : threads) {
                        // a mounted virtual thread prints as VirtualThread[#22]/waiting@ForkJoinPool-1-worker-3
                        String s = t.toString();
                        if (s.contains("/waiting@")) {
                            carriers.add(s.substring(s.indexOf('@') + 1));
                        }
                    }
                    released.set(true);
                    for (Object lock : locks) {
                        synchronized (lock) {
                            lock.notifyAll();
                        }
                    }
                    for (Thread t : threads) {
                        t.join();
                    }
                },
                PinCheck.BodyThread.VIRTUAL);
        assertEquals(0, r.pins(), "JFR records no pin for Object.wait on any JDK: " + r.toText());
        if (Runtime.version().feature() >= 24) {
            assertEquals(java.util.Set.of(), carriers, "JDK 24+: waiters unmount");
        } else {
            assertEquals(
                    waiters,
                    carriers.size(),
                    "JDK 21-23: each waiter holds its own carrier, more than"
                            + " the scheduler's parallelism, so it compensated: " + carriers);
        }
    }

    @Test
    @SuppressWarnings("deprecation")
    void theDeprecatedBooleanFormsKeepWorking() throws Throwable {
        assertEquals(1, PinCheck.capture(PinCheckTest::pin, true).pins(), "true: a new virtual thread");
        assertEquals(0, PinCheck.capture(PinCheckTest::pin, false).pins(), "false: the test's platform thread");
        assertThrows(
                AssertionError.class,
                () -> PinCheck.verify(PinCheckTest::pin, 0, "the body", true, AssertionError::new));
    }

    @Test
    void aPinOnAThreadTheBodyStartedCounts() throws Throwable {
        // PinProbe.pinVirtualThread starts a virtual thread of its own, which blocks in a <clinit>
        PinReport r =
                PinCheck.capture(() -> PinProbe.pinVirtualThread(Duration.ofMillis(5)), PinCheck.BodyThread.CALLER);
        assertEquals(1, r.pins(), r.toText());
        assertTrue(r.notCounted().isEmpty(), r.toText());
    }

    @Test
    void verifyFailsABrokenRuleAndAttachesItToTheBodysOwnFailure() throws Throwable {
        assertEquals(
                0,
                PinCheck.verify(() -> {}, 0, "the code", PinCheck.BodyThread.VIRTUAL, AssertionError::new)
                        .pins());
        assertEquals(
                2,
                PinCheck.verify(
                                () -> {
                                    pin();
                                    pin();
                                },
                                2,
                                "the code",
                                PinCheck.BodyThread.VIRTUAL,
                                AssertionError::new)
                        .pins());
        AssertionError none = assertThrows(
                AssertionError.class,
                () -> PinCheck.verify(
                        PinCheckTest::pin, 0, "the body", PinCheck.BodyThread.VIRTUAL, AssertionError::new));
        assertTrue(
                none.getMessage()
                        .startsWith("expected no pinned virtual threads, but the body pinned once:\n1 pin at 1 site"),
                none.getMessage());
        assertTrue(none.getMessage().contains("at dev.weft.pin.ProbeInit.<clinit>"), "with the stack");
        AssertionError some = assertThrows(
                AssertionError.class,
                () -> PinCheck.verify(() -> {}, 1, "the body", PinCheck.BodyThread.VIRTUAL, AssertionError::new));
        assertEquals(
                "expected the body to pin a virtual thread at least once, but it pinned 0 times"
                        + PinCheck.JFR_BLIND_SPOT,
                some.getMessage());
        IllegalStateException own = new IllegalStateException("mine");
        IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> PinCheck.verify(
                        () -> {
                            pin();
                            throw own;
                        },
                        0,
                        "the body",
                        PinCheck.BodyThread.VIRTUAL,
                        AssertionError::new));
        assertSame(own, thrown);
        assertInstanceOf(AssertionError.class, thrown.getSuppressed()[0]);
        assertThrows(
                IllegalArgumentException.class,
                () -> PinCheck.verify(() -> {}, -1, "x", PinCheck.BodyThread.VIRTUAL, AssertionError::new));
    }

    @Test
    @Timeout(30)
    void interruptingTheCallerInterruptsTheBodyAndWaitsForIt() throws Exception {
        AtomicReference<Thread> body = new AtomicReference<>();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch bodyInterrupted = new CountDownLatch(1);
        AtomicReference<Throwable> callerGot = new AtomicReference<>();
        Thread caller = Thread.ofPlatform().start(() -> {
            try {
                PinCheck.capture(
                        () -> {
                            body.set(Thread.currentThread());
                            running.countDown();
                            try {
                                new CountDownLatch(1).await();
                            } catch (InterruptedException e) {
                                bodyInterrupted.countDown();
                                Thread.sleep(20); // still busy after the interrupt: the caller must wait for it
                                throw e;
                            }
                        },
                        PinCheck.BodyThread.VIRTUAL);
            } catch (Throwable t) {
                callerGot.set(t);
            }
        });
        running.await();
        caller.interrupt();
        caller.join();
        assertInstanceOf(InterruptedException.class, callerGot.get());
        assertEquals(0, bodyInterrupted.getCount(), "the body was interrupted");
        assertFalse(body.get().isAlive(), "and had ended when the check threw");
    }
}
