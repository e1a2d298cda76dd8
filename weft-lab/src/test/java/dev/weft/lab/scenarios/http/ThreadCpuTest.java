package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link ThreadCpu}: a process's CPU time from its threads' schedstat, to the nanosecond. */
class ThreadCpuTest {

    /** Keeps the spin loop's work from being optimized away. */
    static volatile long sink;

    @Test
    void countsTheCpuTimeThisProcessSpends() {
        long pid = ProcessHandle.current().pid();
        Optional<Duration> before = ThreadCpu.schedstat(pid);
        assumeTrue(before.isPresent(), "no /proc/<pid>/task/*/schedstat here (not Linux?)");
        // Spin until this thread has had 30 ms of CPU, however long the machine makes that take.
        var threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        long x = 0;
        while (threads.getCurrentThreadCpuTime() - start < 30_000_000L) {
            x += System.nanoTime() % 7;
        }
        Duration spent = ThreadCpu.schedstat(pid).orElseThrow().minus(before.get());
        sink = x;
        assertTrue(spent.toNanos() >= 30_000_000L, "this thread's 30 ms are in the process's figure: " + spent);
    }

    @Test
    void aProcessThatIsNotThereHasNoFigure() {
        assertEquals(Optional.empty(), ThreadCpu.schedstat(Long.MAX_VALUE));
        assertEquals(Optional.empty(), ThreadCpu.of(Long.MAX_VALUE));
    }
}
