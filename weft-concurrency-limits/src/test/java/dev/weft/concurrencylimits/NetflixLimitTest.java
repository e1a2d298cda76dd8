package dev.weft.concurrencylimits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import dev.weft.limit.AdaptiveLimit;
import dev.weft.limit.LimitExceededException;
import dev.weft.limit.Limiter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Netflix's algorithms behind weft's AdaptiveLimit: samples reach them, and a weft Limiter enforces
 * what they decide. The convergence tests feed a simulated downstream (no sleeping, no clock): it
 * serves {@code KNEE} calls at once at a base latency and queues the rest, so a call's latency is
 * {@code base × max(1, inFlight / KNEE)}.
 */
class NetflixLimitTest {

    static final int KNEE = 8;
    static final long BASE = TimeUnit.MILLISECONDS.toNanos(40);

    @Test
    void aimdGrowsWhileBusyAndBacksOffOnADropThroughALimiter() throws Exception {
        AdaptiveLimit aimd = NetflixLimit.of(AIMDLimit.newBuilder()
                .initialLimit(10)
                .minLimit(1)
                .maxLimit(100)
                .timeout(1, TimeUnit.MINUTES)
                .build());
        Limiter limiter = Limiter.builder("aimd", aimd).maxWaiting(0).build();
        List<Limiter.Permit> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            held.add(limiter.acquire());
        }
        assertThrows(LimitExceededException.class, limiter::acquire, "the initial limit is enforced");
        for (Limiter.Permit p : held) {
            p.close(); // let in with 1..10 in flight: those at >= half the limit raise it by one each
        }
        assertEquals(16, limiter.permits(), aimd.toString());
        limiter.acquire().closeDropped();
        assertEquals(14, limiter.permits(), "a drop multiplies the limit by 0.9: " + aimd);
        limiter.acquire().closeIgnored();
        assertEquals(14, limiter.permits(), "an ignored call is no sample");
    }

    @Test
    void vegasSettlesJustAboveTheKneeFromBelowAndFromAbove() {
        for (int initial : new int[] {2, 40}) {
            AdaptiveLimit vegas = NetflixLimit.of(VegasLimit.newBuilder()
                    .initialLimit(initial)
                    .maxConcurrency(200)
                    .build());
            int settled = simulate(vegas, 4 * KNEE, 6000);
            assertTrue(
                    settled >= KNEE && settled <= 2 * KNEE,
                    "from " + initial + ": settled at " + settled + " for a knee at " + KNEE);
        }
    }

    @Test
    void aimdWithATimeoutAboveTheBaseLatencySettlesNearTheKnee() {
        AdaptiveLimit aimd = NetflixLimit.of(AIMDLimit.newBuilder()
                .initialLimit(2)
                .minLimit(1)
                .maxLimit(200)
                .timeout(BASE * 2, TimeUnit.NANOSECONDS)
                .build());
        int settled = simulate(aimd, 4 * KNEE, 6000);
        assertTrue(settled >= KNEE / 2 && settled <= 3 * KNEE, "settled at " + settled + " for a knee at " + KNEE);
    }

    @Test
    void gradient2ShrinksWhenLatencySuddenlyRises() {
        AdaptiveLimit gradient = NetflixLimit.of(Gradient2Limit.newBuilder()
                .initialLimit(40)
                .minLimit(1)
                .maxConcurrency(200)
                .build());
        long start = 0;
        for (int i = 0; i < 1000; i++) {
            gradient.onSample(start, BASE, 40, false); // busy at a steady latency
        }
        int before = gradient.limit();
        for (int i = 0; i < 20; i++) {
            gradient.onSample(start, BASE * 4, before, false); // the downstream slows down four times
        }
        assertTrue(gradient.limit() < before / 2, "from " + before + " to " + gradient.limit());
    }

    @Test
    void wrapsWhatItIsGiven() {
        var vegas = VegasLimit.newBuilder().initialLimit(7).build();
        NetflixLimit limit = NetflixLimit.of(vegas);
        assertEquals(vegas, limit.delegate());
        assertEquals(7, limit.limit());
        assertTrue(limit.toString().contains("7"), limit.toString());
        assertThrows(NullPointerException.class, () -> NetflixLimit.of(null));
    }

    /**
     * Runs {@code calls} calls through {@code limit} from {@code clients} callers (each starts its
     * next call as soon as one ends, when the limit lets it) against the simulated downstream,
     * and returns the median limit over the second half of the run.
     */
    static int simulate(AdaptiveLimit limit, int clients, int calls) {
        Random random = new Random(42);
        PriorityQueue<long[]> inFlight = new PriorityQueue<>(Comparator.comparingLong(c -> c[0])); // {end, start, n}
        List<Integer> seen = new ArrayList<>();
        long now = 0;
        for (int done = 0; done < calls; done++) {
            while (inFlight.size() < Math.min(clients, Math.max(1, limit.limit()))) {
                int n = inFlight.size() + 1;
                double jitter = 1 + 0.05 * Math.abs(random.nextGaussian());
                long latency = (long) (BASE * Math.max(1.0, (double) n / KNEE) * jitter);
                inFlight.add(new long[] {now + latency, now, n});
            }
            long[] call = inFlight.poll();
            now = call[0];
            limit.onSample(call[1], call[0] - call[1], (int) call[2], false);
            if (done >= calls / 2) {
                seen.add(limit.limit());
            }
        }
        seen.sort(null);
        return seen.get(seen.size() / 2);
    }
}
