package dev.weft.lab.scenarios.http;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * A process's CPU time to the nanosecond, for load windows of a few hundred milliseconds (decision
 * 0825): the sum over its live threads of the first field of Linux's
 * {@code /proc/<pid>/task/<tid>/schedstat}, the time each thread has run on a CPU, in nanoseconds.
 *
 * <p>Why not the process's total from {@code /proc/<pid>/stat} (what {@link ProcessHandle.Info#totalCpuDuration()}
 * reads): it is printed in clock ticks of 10 ms, so a reading at each end of a 100 ms slice of a server
 * using one core is off by up to 10%, and a paired round's CPU ratio inherits that noise. The
 * per-thread figures are exact but forget a thread once it exits: a thread that ends between two
 * readings takes its CPU time since the first with it. The lab's servers keep their threads for the
 * seconds a pair lasts (fixed carriers, selector threads, pools idle for 30-60 s before they shrink).
 *
 * <p>Where there is no {@code schedstat} (not Linux, or a kernel without scheduler statistics),
 * {@link #of(long)} falls back to {@link ProcessHandle.Info#totalCpuDuration()}.
 */
final class ThreadCpu {

    private ThreadCpu() {}

    /** The CPU time process {@code pid} has used so far, if the OS tells. */
    static Optional<Duration> of(long pid) {
        Optional<Duration> exact = schedstat(pid);
        return exact.isPresent()
                ? exact
                : ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration());
    }

    /** The sum of the live threads' run time from schedstat, or empty when unreadable. */
    static Optional<Duration> schedstat(long pid) {
        return schedstat(pid, false);
    }

    /**
     * The CPU time the JIT's compiler threads of JVM {@code pid} have used so far (HotSpot's
     * {@code C1 CompilerThread<n>} and {@code C2 CompilerThread<n>}, by their names in
     * {@code /proc/<pid>/task/<tid>/comm}), or empty when unreadable. Its growth over a stretch of
     * load says whether the server was still compiling its request path then.
     */
    static Optional<Duration> compiler(long pid) {
        return schedstat(pid, true);
    }

    private static Optional<Duration> schedstat(long pid, boolean compilerOnly) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        long nanos = 0;
        int read = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path thread : threads) {
                String line;
                try {
                    if (compilerOnly
                            && !Files.readString(thread.resolve("comm")).contains("CompilerThre")) {
                        read++; // a live thread of the process, not the JIT's
                        continue;
                    }
                    line = Files.readString(thread.resolve("schedstat"));
                } catch (NoSuchFileException e) {
                    continue; // the thread ended after the listing
                }
                int space = line.indexOf(' ');
                nanos += Long.parseLong(space < 0 ? line.strip() : line.substring(0, space));
                read++;
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return read == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(nanos));
    }
}
