package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link Stagger} on a simulated clock (decision 0860): after a resume, the @120 pair's 120
 * connections on 2 selector threads send spread evenly over one 50 ms round trip, each once, instead
 * of all at the resume (the old behaviour, which kept them in step for the whole slice).
 */
class StaggerTest {

    private static final long MS = 1_000_000;
    private static final int CONNECTIONS = 120;
    private static final int THREADS = 2;

    /** Runs each thread's selector loop on a clock of its own from {@code start}; the send times by connection. */
    private static Map<Integer, Long> sendTimes(long spreadNanos, long start) {
        Map<Integer, Long> sent = new TreeMap<>();
        for (int w = 0; w < THREADS; w++) {
            List<Integer> mine = new ArrayList<>();
            for (int j = 0; j < CONNECTIONS / THREADS; j++) {
                mine.add(j * THREADS + w); // the connection's generator-wide index, as its name
            }
            Stagger<Integer> s = new Stagger<>(spreadNanos, CONNECTIONS, w, THREADS, mine);
            long now = start;
            s.resume(now, c -> true);
            for (int wakes = 0; s.pending(); wakes++) {
                long t = now;
                s.sendDue(t, c -> assertEquals(null, sent.put(c, t), "connection " + c + " sent once"));
                now += s.waitMs(now, 100) * MS; // the selector sleeps this long, then wakes
                assertTrue(wakes < 1_000, "the loop ends");
            }
        }
        return sent;
    }

    @Test
    void aResumeSpreadsTheSendsEvenlyOverOneRoundTrip() {
        long start = 7_000 * MS;
        Map<Integer, Long> sent = sendTimes(50 * MS, start);
        assertEquals(CONNECTIONS, sent.size(), "every connection sent");
        // Evenly: connection i is due at 50 ms * i / 120, sent within the selector's millisecond.
        for (Map.Entry<Integer, Long> e : sent.entrySet()) {
            long due = 50 * MS * e.getKey() / CONNECTIONS;
            long at = e.getValue() - start;
            assertTrue(at >= due && at < due + MS, "connection " + e.getKey() + " due at " + due + " sent at " + at);
        }
        // No burst: at most 3 sends in any millisecond (120 over 50 ms is 2.4), the last by 51 ms.
        int[] perMs = new int[60];
        for (long t : sent.values()) {
            perMs[(int) ((t - start) / MS)]++;
        }
        for (int ms = 0; ms < perMs.length; ms++) {
            assertTrue(perMs[ms] <= 3, perMs[ms] + " sends in millisecond " + ms);
            assertTrue(ms <= 50 || perMs[ms] == 0, "sent after the round trip, at " + ms + " ms");
        }
    }

    @Test
    void noSpreadSendsEveryConnectionAtTheResumeAsBefore() {
        long start = 3 * MS;
        Map<Integer, Long> sent = sendTimes(0, start);
        assertEquals(CONNECTIONS, sent.size());
        assertTrue(sent.values().stream().allMatch(t -> t == start), "all at the resume: " + sent);
    }

    @Test
    void onlyWaitingConnectionsSendAndAResumeStartsOver() {
        List<String> conns = List.of("a", "b", "c", "d");
        Stagger<String> s = new Stagger<>(40 * MS, 4, 0, 1, conns); // due at 0, 10, 20, 30 ms
        List<String> sent = new ArrayList<>();
        s.resume(0, c -> !c.equals("b")); // b has a request in flight: it is not waiting
        s.sendDue(15 * MS, sent::add);
        assertEquals(List.of("a"), sent, "b skipped, c not yet due");
        assertEquals(5, s.waitMs(15 * MS, 100), "c is due in 5 ms");
        // Paused and resumed before c and d sent: the new resume's schedule replaces the old one.
        s.resume(100 * MS, c -> true);
        s.sendDue(100 * MS, sent::add);
        assertEquals(List.of("a", "a"), sent, "only the first is due at the new resume");
        s.sendDue(130 * MS, sent::add);
        assertEquals(List.of("a", "a", "b", "c", "d"), sent);
        assertFalse(s.pending());
        assertEquals(100, s.waitMs(130 * MS, 100), "nothing pending: the selector's own wait");
    }

    @Test
    void rejectsANegativeSpreadOrAnEmptyGenerator() {
        assertThrows(IllegalArgumentException.class, () -> new Stagger<>(-1, 4, 0, 1, List.of("a")));
        assertThrows(IllegalArgumentException.class, () -> new Stagger<>(MS, 0, 0, 1, List.of("a")));
        assertThrows(IllegalArgumentException.class, () -> new Stagger<>(MS, 4, 0, 0, List.of("a")));
    }
}
