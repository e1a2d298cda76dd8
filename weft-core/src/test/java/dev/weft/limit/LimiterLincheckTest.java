package dev.weft.limit;

import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck's model checker over a {@link Limiter}'s gates, {@link FixedGate} (a fair semaphore,
 * a bounded count of waiters) and {@link AdaptiveGate} (a lock, a queue of waiters, hand-off on
 * release), through the limiter's API: callers on three threads acquire (admitted, or turned
 * away when nothing is free and there is no room to wait), try to acquire, and release what they
 * hold, in every interleaving the checker explores. Checked in every operation: never more
 * holders than permits; after each run: what the limiter counts in use is what the callers hold,
 * nobody waits, and every rejection was counted once.
 *
 * <p>The limiters here never make a caller wait ({@code maxWaiting(0)}): an operation that waits
 * for another thread's release would block forever in a scenario without one, which the model
 * checker reports as a deadlock. The waiting paths stay with LimiterStressTest. Part of the model
 * tier (build/test/model.sh, doc/testing.md).
 */
class LimiterLincheckTest {

    private static final int PERMITS = 2;

    @Test
    void fixedGate() {
        check(Fixed.class);
    }

    @Test
    void adaptiveGate() {
        check(Adaptive.class);
    }

    /** The operations, over the limiter a subclass makes (the model checker makes one per run). */
    public abstract static class Model {
        private final Limiter limiter;
        private final ConcurrentLinkedQueue<Limiter.Permit> held = new ConcurrentLinkedQueue<>();
        private final AtomicInteger rejections = new AtomicInteger();

        Model(Limiter limiter) {
            this.limiter = limiter;
        }

        /** A caller takes a permit, or is turned away at once. */
        @Operation
        public void acquire() throws InterruptedException {
            try {
                held.add(limiter.acquire());
            } catch (LimitExceededException e) {
                rejections.incrementAndGet();
            }
            checkBound();
        }

        /** A caller takes a permit if one is free now. */
        @Operation
        public void tryAcquire() {
            Optional<Limiter.Permit> p = limiter.tryAcquire();
            p.ifPresent(held::add);
            checkBound();
        }

        /** A caller gives back a permit someone holds, if any. */
        @Operation
        public void release() {
            Limiter.Permit p = held.poll();
            if (p != null) {
                p.close();
            }
        }

        private void checkBound() {
            int inUse = limiter.inUse();
            if (inUse > PERMITS) {
                throw new AssertionError(inUse + " callers hold a permit of a limiter of " + PERMITS);
            }
        }

        @Validate
        public void nothingLeaksAndEveryRejectionIsCountedOnce() {
            if (limiter.inUse() != held.size()) {
                throw new AssertionError(
                        "the limiter counts " + limiter.inUse() + " in use, the callers hold " + held.size());
            }
            if (limiter.waiting() != 0) {
                throw new AssertionError(limiter.waiting() + " waiting after every caller returned");
            }
            if (limiter.rejected() != rejections.get()) {
                throw new AssertionError(
                        "the limiter counted " + limiter.rejected() + " rejections, callers saw " + rejections.get());
            }
        }
    }

    static void check(Class<?> test) {
        new ModelCheckingOptions()
                .iterations(Integer.getInteger("weft.model.iterations", 30))
                .invocationsPerIteration(Integer.getInteger("weft.model.invocations", 1_000))
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1)
                .check(test);
    }

    /** The fixed gate: a fair semaphore. */
    public static class Fixed extends Model {
        public Fixed() {
            super(Limiter.builder("model", PERMITS).maxWaiting(0).build());
        }
    }

    /** The adaptive gate, over a limit that moves between 1 and 2 as calls complete. */
    public static class Adaptive extends Model {
        public Adaptive() {
            super(Limiter.builder("model", new AdaptiveLimit() {
                        private volatile int limit = PERMITS;

                        @Override
                        public int limit() {
                            return limit;
                        }

                        @Override
                        public void onSample(long startNanos, long latencyNanos, int inFlight, boolean dropped) {
                            limit = limit == PERMITS ? 1 : PERMITS;
                        }
                    })
                    .maxWaiting(0)
                    .build());
        }
    }
}
