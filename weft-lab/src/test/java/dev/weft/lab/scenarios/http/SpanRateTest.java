package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SpanRate} on synthetic completion times (decision 0850): connections completing in step,
 * a burst every round trip, as 120 connections on the 50 ms handler do, where completions / window
 * seconds depends on where the window's edges fall, and dense completions, where both agree.
 */
class SpanRateTest {

    /** The @120 case: 120 connections, each completing once per 50.4 ms round trip, all in step. */
    private static final int CONNECTIONS = 120;

    private static final long CYCLE_NANOS = 50_400_000;
    private static final double TRUE_RATE = CONNECTIONS * 1e9 / CYCLE_NANOS; // 2,380.95 req/s

    /** What one window of {@code windowNanos} from {@code startNanos} sees of in-step bursts. */
    private record Window(double countRate, Double spanRate) {}

    private static Window inStep(long startNanos, long windowNanos, long jitterNanos) {
        List<SpanRate.Conn> conns = new ArrayList<>();
        long count = 0;
        for (int c = 0; c < CONNECTIONS; c++) {
            SpanRate.Conn conn = new SpanRate.Conn();
            conns.add(conn);
            long offset = c * jitterNanos / CONNECTIONS; // the burst's own width, if any
            for (long t = offset; t < startNanos + windowNanos + CYCLE_NANOS; t += CYCLE_NANOS) {
                if (t >= startNanos && t < startNanos + windowNanos) {
                    conn.completed(t);
                    count++;
                }
            }
            conn.endPart();
        }
        return new Window(count * 1e9 / windowNanos, SpanRate.rate(conns));
    }

    @Test
    void inStepBurstsGiveTheTrueRateWhereverTheWindowStarts() {
        double lowestCount = Double.MAX_VALUE;
        double highestCount = 0;
        // A 1 s window (quick mode's old single window) at 50 phases across one round trip.
        for (int phase = 0; phase < 50; phase++) {
            Window w = inStep(10 * CYCLE_NANOS + phase * CYCLE_NANOS / 50 + 1, 1_000_000_000L, 0);
            assertEquals(TRUE_RATE, w.spanRate(), TRUE_RATE * 1e-9, "phase " + phase);
            lowestCount = Math.min(lowestCount, w.countRate());
            highestCount = Math.max(highestCount, w.countRate());
        }
        // The old figure: 19 or 20 bursts, 2,280 or 2,400 req/s for the same server.
        assertEquals(CONNECTIONS * 19, lowestCount, 1e-6);
        assertEquals(CONNECTIONS * 20, highestCount, 1e-6);
        assertTrue(highestCount / lowestCount > 1.05, "a 5% step from the window's edges alone");
    }

    @Test
    void aShortSliceOfBurstsWithWidthIsStillExact() {
        // Quick mode's 250 ms slice, the 120 completions of a burst spread over 5 ms.
        for (int phase = 0; phase < 10; phase++) {
            Window w = inStep(3 * CYCLE_NANOS + phase * CYCLE_NANOS / 10, 250_000_000L, 5_000_000);
            assertEquals(TRUE_RATE, w.spanRate(), TRUE_RATE * 1e-9, "phase " + phase);
        }
    }

    @Test
    void denseCompletionsAgreeWithCompletionsPerSecond() {
        // 120 connections at ~1 ms round trips with a deterministic spread (no sleep): both figures
        // within 1% of each other over a 400 ms window.
        List<SpanRate.Conn> conns = new ArrayList<>();
        long count = 0;
        long window = 400_000_000L;
        for (int c = 0; c < CONNECTIONS; c++) {
            SpanRate.Conn conn = new SpanRate.Conn();
            conns.add(conn);
            long rt = 900_000 + (c % 7) * 50_000; // 0.90-1.20 ms
            for (long t = (c * 37_000L) % rt; t < window; t += rt) {
                conn.completed(t);
                count++;
            }
            conn.endPart();
        }
        double countRate = count * 1e9 / window;
        assertEquals(countRate, SpanRate.rate(conns), countRate * 0.01);
    }

    @Test
    void partsAddTheirIntervalsAndLeaveOutTheTimeBetweenThem() {
        SpanRate.Conn conn = new SpanRate.Conn();
        // Part 1: completions at 0, 50, 100 ms; paused 1 s; part 2: at 1,200, 1,250 ms.
        for (long t : new long[] {0, 50, 100}) {
            conn.completed(t * 1_000_000);
        }
        conn.endPart();
        for (long t : new long[] {1_200, 1_250}) {
            conn.completed(t * 1_000_000);
        }
        conn.endPart();
        assertEquals(20.0, conn.rate(), 1e-9, "3 intervals over 150 ms of spans: one per 50 ms");
        assertEquals(20.0, SpanRate.rate(List.of(conn)), 1e-9);
    }

    @Test
    void aConnectionThatCompletedOnceAddsNothingAndResetForgets() {
        SpanRate.Conn once = new SpanRate.Conn();
        once.completed(5);
        once.endPart();
        assertNull(SpanRate.rate(List.of(once)), "no interval anywhere: no figure");
        SpanRate.Conn twice = new SpanRate.Conn();
        twice.completed(0);
        twice.completed(100_000_000);
        twice.endPart();
        assertEquals(10.0, SpanRate.rate(List.of(once, twice)), 1e-9);
        twice.reset();
        assertNull(SpanRate.rate(List.of(twice)));
    }
}
