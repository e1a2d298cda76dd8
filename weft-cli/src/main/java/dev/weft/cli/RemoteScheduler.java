package dev.weft.cli;

import dev.weft.scheduler.SchedulerSnapshot;
import java.io.IOException;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link SchedulerSnapshot}s of another JVM read through diagnostic commands, without JMX.
 *
 * <p>The scheduler figures come from {@code Thread.vthread_scheduler} (JDK 24 and later), which
 * prints the scheduler's {@code ForkJoinPool}: parallelism, size (the pool size), active (the
 * mounted virtual threads, as {@code VirtualThreadSchedulerMXBean} counts them), and tasks plus
 * submissions (the queued virtual threads). On JDK 21-23 that command does not exist and the
 * snapshot says so. The platform-thread figures come from the performance counters
 * ({@link PerfCounters}: {@code java.threads.live}, {@code livePeak}, {@code started}); a JVM run
 * with {@code -XX:-UsePerfData} has none, and they are then -1.
 */
final class RemoteScheduler {

    private static final Pattern POOL = Pattern.compile(
            "parallelism = (\\d+), size = (\\d+), active = (\\d+), running = \\d+, steals = \\d+, tasks = (\\d+),"
                    + " submissions = (\\d+)");
    static final String NEEDS_24 = "not available: the scheduler's figures need JDK 24 or later in the target"
            + " (its diagnostic command Thread.vthread_scheduler)";

    private final DiagnosticCommands jvm;
    private final PerfCounters counters;
    /** Null until known; false once the target has said it lacks the command (no further tries). */
    private Boolean hasSchedulerCommand;

    /** Reads the scheduler through {@code jvm}, the thread counts through {@code counters}. */
    RemoteScheduler(DiagnosticCommands jvm, PerfCounters counters) {
        this.jvm = jvm;
        this.counters = counters;
    }

    /** A snapshot now. */
    synchronized SchedulerSnapshot snapshot() throws IOException {
        Instant now = Instant.now();
        long[] threads = counters.threads();
        int live = (int) threads[0];
        int peak = (int) threads[1];
        long started = threads[2];
        if (Boolean.FALSE.equals(hasSchedulerCommand)) {
            return new SchedulerSnapshot(now, false, NEEDS_24, -1, -1, -1, -1, live, peak, started);
        }
        String pool = jvm.run("Thread.vthread_scheduler");
        return parse(now, pool, live, peak, started);
    }

    /** Reads {@code Thread.vthread_scheduler}'s output; a target without the command gets the reason. */
    SchedulerSnapshot parse(Instant at, String pool, int live, int peak, long started) {
        Matcher m = POOL.matcher(pool);
        if (m.find()) {
            hasSchedulerCommand = true;
            return new SchedulerSnapshot(
                    at,
                    true,
                    null,
                    Integer.parseInt(m.group(1)),
                    Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(3)),
                    Long.parseLong(m.group(4)) + Long.parseLong(m.group(5)),
                    live,
                    peak,
                    started);
        }
        String reason;
        if (pool.contains("Unknown diagnostic command")) {
            hasSchedulerCommand = false;
            reason = NEEDS_24;
        } else {
            reason = "not available: Thread.vthread_scheduler printed no ForkJoinPool figures: "
                    + pool.strip().lines().findFirst().orElse("(nothing)");
        }
        return new SchedulerSnapshot(at, false, reason, -1, -1, -1, -1, live, peak, started);
    }
}
