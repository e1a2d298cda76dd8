package dev.weft.lab.scenarios.http;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * h2load (Debian's {@code nghttp2-client}), the HTTP/2 load tool: {@code connections} h2c
 * connections (prior knowledge) with {@code streams} concurrent streams on each, closed loop, for
 * a fixed time. A warm-up run comes first, then the measured run, with the server JVM's CPU time
 * read around it. h2load reports the mean and the slowest request, not percentiles.
 */
final class H2load {

    private final Path executable;

    private H2load(Path executable) {
        this.executable = executable;
    }

    /** h2load from the PATH, if it is there ({@code ./weft lab} installs it when it can). */
    static Optional<H2load> find() {
        return Tools.onPath("h2load").map(H2load::new);
    }

    /** The executable's path, for the report. */
    Path executable() {
        return executable;
    }

    /** What one h2load run measured: the load result and h2load's mean request time. */
    record Run(LoadResult load, Double meanMs) {}

    /**
     * Runs a warm-up and a measured window of {@code streams} concurrent streams on each of
     * {@code connections} connections against {@code http://127.0.0.1:<port><path>}.
     */
    Run run(int port, String path, int connections, int streams, long warmupMs, long durationMs, long serverPid)
            throws IOException, InterruptedException {
        String url = "http://127.0.0.1:" + port + path;
        if (warmupMs > 0) {
            h2load(url, connections, streams, warmupMs);
        }
        Optional<Duration> cpu0 = LoadGenerator.cpu(serverPid);
        String report = h2load(url, connections, streams, durationMs);
        return parse(report, connections * streams, LoadGenerator.seconds(cpu0, LoadGenerator.cpu(serverPid)));
    }

    private String h2load(String url, int connections, int streams, long ms) throws IOException, InterruptedException {
        // -D in milliseconds ("300ms"); h2load ends by itself, the timeout is a hang guard.
        return Tools.run(
                List.of(
                        executable.toString(),
                        "-c",
                        Integer.toString(connections),
                        "-m",
                        Integer.toString(streams),
                        "-D",
                        ms + "ms",
                        url),
                ms / 1000 + 30L);
    }

    private static final Pattern FINISHED = Pattern.compile("finished in ([\\d.]+)(us|ms|s|m), ([\\d.]+) req/s");
    private static final Pattern REQUESTS = Pattern.compile(
            "requests: \\d+ total, \\d+ started, (\\d+) done, (\\d+) succeeded, (\\d+) failed, (\\d+) errored, (\\d+) timeout");
    private static final Pattern STATUS =
            Pattern.compile("status codes: (\\d+) 2xx, (\\d+) 3xx, (\\d+) 4xx, (\\d+) 5xx");
    private static final Pattern REQUEST_TIME =
            Pattern.compile("time for request:\\s+([\\d.]+)(us|ms|s)\\s+([\\d.]+)(us|ms|s)\\s+([\\d.]+)(us|ms|s)");

    /**
     * Reads h2load's report: succeeded requests count; responses that are not 2xx are non-2xx
     * (h2load counts them as failed too); the other failed and the errored requests are read
     * errors, timed-out ones timeouts. The window is h2load's main duration (its rate's
     * denominator), not the "finished in" time, which includes the last requests' wind-down.
     *
     * @param concurrency connections times streams, reported as the variant's connections
     * @throws IOException if the report lacks its summary lines
     */
    static Run parse(String report, int concurrency, Double serverCpuSeconds) throws IOException {
        Matcher f = FINISHED.matcher(report);
        Matcher r = REQUESTS.matcher(report);
        Matcher s = STATUS.matcher(report);
        if (!f.find() || !r.find() || !s.find()) {
            throw new IOException(
                    "cannot read h2load's report (no \"finished in\", \"requests:\" or \"status codes:\" line):\n"
                            + report);
        }
        double rate = Double.parseDouble(f.group(3));
        long succeeded = Long.parseLong(r.group(2));
        long timeouts = Long.parseLong(r.group(5));
        long non2xx = Long.parseLong(s.group(2)) + Long.parseLong(s.group(3)) + Long.parseLong(s.group(4));
        long failed = Math.max(0, Long.parseLong(r.group(3)) - non2xx) + Long.parseLong(r.group(4));
        long done = Long.parseLong(r.group(1));
        double seconds = rate > 0 ? done / rate : Tools.millis(f.group(1), f.group(2)) / 1000.0;
        Matcher t = REQUEST_TIME.matcher(report);
        Double max = null;
        Double mean = null;
        if (t.find()) {
            max = Tools.millis(t.group(3), t.group(4));
            mean = Tools.millis(t.group(5), t.group(6));
        }
        LoadResult load = new LoadResult(
                "h2load",
                concurrency,
                succeeded,
                seconds,
                rate,
                null,
                null,
                max,
                0,
                failed,
                0,
                timeouts,
                non2xx,
                serverCpuSeconds,
                null);
        return new Run(load, mean);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "h2load (%s)", executable);
    }
}
