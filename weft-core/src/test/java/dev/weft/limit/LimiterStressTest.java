package dev.weft.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.StressSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The limiter, fixed or adaptive, under a randomized interleaving of many virtual threads: acquire
 * (waiting or rejected), hold for a random spin, release; interrupts thrown in. Invariants checked
 * all along: never more holders than the most permits; at the end nothing held or waiting, and every rejection a
 * caller saw counted once. Runs only in the stress tier (build/test/stress.sh).
 */
class LimiterStressTest {

    @Test
    void holdersNeverExceedPermitsAndEveryRejectionIsCounted() throws Exception {
        long until = StressSupport.deadline();
        int rounds = 0;
        while (System.nanoTime() < until) {
            round(rounds++);
        }
        assertTrue(rounds > 0);
    }

    private static void round(int round) throws Exception {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int permits = 1 + rnd.nextInt(4);
        int maxWaiting = rnd.nextInt(6);
        // Half the rounds run over an adaptive limit that moves between 1 and permits as samples
        // come in, so callers are let in and kept waiting while the limit rises and falls.
        AtomicInteger samples = new AtomicInteger();
        AdaptiveLimit moving = new AdaptiveLimit() {
            @Override
            public int limit() {
                return 1 + (samples.get() / 3) % permits;
            }

            @Override
            public void onSample(long startNanos, long latencyNanos, int inFlight, boolean dropped) {
                samples.incrementAndGet();
            }
        };
        Limiter.Builder b = (rnd.nextBoolean() ? Limiter.builder("stress", moving) : Limiter.builder("stress", permits))
                .maxWaiting(maxWaiting);
        if (rnd.nextBoolean()) {
            b.maxWait(Duration.ofNanos(rnd.nextLong(2_000_000)));
        }
        Limiter limiter = b.build();
        AtomicInteger holders = new AtomicInteger();
        LongAdder rejectedSeen = new LongAdder();
        Queue<String> violations = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofVirtual().start(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                for (int i = 0; i < 200; i++) {
                    try (Limiter.Permit p = limiter.acquire()) {
                        int now = holders.incrementAndGet();
                        if (now > permits) {
                            violations.add(now + " holders of " + permits + " permits");
                        }
                        StressSupport.spin(r.nextInt(200));
                        holders.decrementAndGet();
                    } catch (LimitExceededException e) {
                        rejectedSeen.increment();
                    } catch (InterruptedException e) {
                        // an interrupt while waiting takes no permit: go on
                    }
                }
            }));
        }
        for (int i = 0; i < 3; i++) {
            threads.get(rnd.nextInt(threads.size())).interrupt();
            Thread.yield();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(violations.isEmpty(), "round " + round + ": " + violations);
        assertEquals(0, limiter.inUse(), "round " + round + ": permits left held");
        assertEquals(0, limiter.waiting(), "round " + round + ": callers left waiting");
        assertEquals(rejectedSeen.sum(), limiter.rejected(), "round " + round + ": rejections counted");
    }
}
