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

    /** Spins until this thread has had {@code nanos} of CPU, however long the machine makes that take. */
    static long spinThisThread(long nanos) {
        var threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        long x = 0;
        while (threads.getCurrentThreadCpuTime() - start < nanos) {
            x += System.nanoTime() % 7;
        }
        sink = x;
        return x;
    }

    @Test
    void countsTheCpuTimeThisProcessSpends() {
        long pid = ProcessHandle.current().pid();
        Optional<Duration> before = ThreadCpu.schedstat(pid);
        assumeTrue(before.isPresent(), "no /proc/<pid>/task/*/schedstat here (not Linux?)");
        spinThisThread(30_000_000L);
        Duration spent = ThreadCpu.schedstat(pid).orElseThrow().minus(before.get());
        assertTrue(spent.toNanos() >= 30_000_000L, "this thread's 30 ms are in the process's figure: " + spent);
    }

    @Test
    void theJitsFigureHasTheCompilerThreadsAndNotTheOthers() {
        long pid = ProcessHandle.current().pid();
        Optional<Duration> before = ThreadCpu.compiler(pid);
        assumeTrue(before.isPresent(), "no /proc/<pid>/task/*/schedstat here (not Linux?)");
        // This thread's 30 ms of spinning are in the process's figure and not in the JIT's: the
        // process's growth less the JIT's (read inside it) holds them. The JIT may be compiling
        // for other tests meanwhile, which this difference leaves out; a thread that ends
        // between the readings takes its CPU out of the process's figure, so a few tries.
        long x = 0;
        StringBuilder seen = new StringBuilder();
        boolean apart = false;
        for (int attempt = 0; attempt < 5 && !apart; attempt++) {
            long total0 = ThreadCpu.schedstat(pid).orElseThrow().toNanos();
            long jit0 = ThreadCpu.compiler(pid).orElseThrow().toNanos();
            x += spinThisThread(30_000_000L);
            long jit = ThreadCpu.compiler(pid).orElseThrow().toNanos() - jit0;
            long total = ThreadCpu.schedstat(pid).orElseThrow().toNanos() - total0;
            apart = total - jit >= 30_000_000L;
            seen.append(String.format(" [process %.1f ms, JIT %.1f ms]", total / 1e6, jit / 1e6));
        }
        assertTrue(apart, "a spinning application thread is not counted as the JIT:" + seen);
        // ... while compiling a method that gets hot is: the figure grows (bounded, for a loaded machine).
        long deadline = System.nanoTime() + 20_000_000_000L;
        Duration atStart = ThreadCpu.compiler(pid).orElseThrow();
        while (ThreadCpu.compiler(pid).orElseThrow().compareTo(atStart) <= 0 && System.nanoTime() < deadline) {
            for (int i = 0; i < 20_000; i++) {
                x += Hot.work(i);
            }
        }
        sink = x;
        assertTrue(
                ThreadCpu.compiler(pid).orElseThrow().compareTo(atStart) > 0,
                "the compiler threads' CPU grew while a new method got hot");
        assertTrue(
                ThreadCpu.compiler(pid)
                                .orElseThrow()
                                .compareTo(ThreadCpu.schedstat(pid).orElseThrow())
                        <= 0,
                "the JIT's share is part of the process's whole");
    }

    /** A method no other test calls, so that the JIT compiles it here. */
    static final class Hot {
        static long work(int i) {
            return (long) i * 31 + (i >>> 3) ^ (i << 7);
        }
    }

    @Test
    void aProcessThatIsNotThereHasNoFigure() {
        assertEquals(Optional.empty(), ThreadCpu.schedstat(Long.MAX_VALUE));
        assertEquals(Optional.empty(), ThreadCpu.of(Long.MAX_VALUE));
        assertEquals(Optional.empty(), ThreadCpu.compiler(Long.MAX_VALUE));
    }
}
