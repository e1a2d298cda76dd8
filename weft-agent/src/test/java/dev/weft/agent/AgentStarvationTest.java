package dev.weft.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.pin.StarvationDetector;
import dev.weft.pin.StarvationReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The agent's starvation detector wakes once per threshold (half the library's default), and
 * still sees carriers held for longer than that and names what held them.
 */
class AgentStarvationTest {

    static volatile long sink;

    /** Keeps a carrier busy without ever giving it back, for {@code ms}. */
    static void spinOnCarrier(long ms) {
        long end = System.nanoTime() + ms * 1_000_000;
        long x = 0;
        while (System.nanoTime() < end) {
            x += x * 31 + 7;
        }
        sink = x;
    }

    @Test
    void carriersHeldLongerThanTheThresholdAreSeenAtTheAgentsPeriod() throws Exception {
        int carriers = Integer.getInteger(
                "jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
        StarvationDetector d =
                AgentRun.starvationDetector(Duration.ofMillis(50)).start();
        Thread.sleep(100);
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < carriers * 2; i++) {
            spinners.add(Thread.ofVirtual().start(() -> spinOnCarrier(1000)));
        }
        for (Thread t : spinners) {
            t.join();
        }
        Thread.sleep(100);
        StarvationReport r = d.stop();
        assertTrue(r.episodes() >= 1, "a wait of 1 s at a period of 50 ms: " + r.toText());
        assertTrue(r.max().toMillis() >= 50, r.toText());
        assertTrue(
                r.sites().stream()
                        .anyMatch(s ->
                                s.frames().stream().anyMatch(f -> f.method().equals("spinOnCarrier"))),
                "the spinning site is named:\n" + r.toText());
    }
}
