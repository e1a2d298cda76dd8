package dev.weft.lab.scenarios.http;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs wrk (https://github.com/wg/wrk), the article's load generator, when it is on the PATH, and
 * reads its report into a {@link LoadResult}. A run is a warm-up run (not counted) and a measured
 * run, with the server's CPU time read around the measured one. wrk counts whole seconds, so the
 * windows are rounded up to at least one second.
 */
final class Wrk {

    private final Path executable;

    private Wrk(Path executable) {
        this.executable = executable;
    }

    /** wrk from the PATH, if it is there. */
    static Optional<Wrk> find() {
        return Tools.onPath("wrk").map(Wrk::new);
    }

    /** The executable's path, for the report. */
    Path executable() {
        return executable;
    }

    /** Runs the plan's warm-up and measured window against 127.0.0.1. */
    LoadResult run(LoadGenerator.Plan plan) throws IOException, InterruptedException {
        String url = "http://127.0.0.1:" + plan.port() + plan.path();
        if (plan.warmupMs() > 0) {
            wrk(url, plan.connections(), plan.threads(), seconds(plan.warmupMs()));
        }
        Optional<Duration> cpu0 = LoadGenerator.cpu(plan.serverPid());
        long startMs = System.currentTimeMillis();
        String report = wrk(url, plan.connections(), plan.threads(), seconds(plan.durationMs()));
        long endMs = System.currentTimeMillis();
        return parse(report, plan.connections(), LoadGenerator.seconds(cpu0, LoadGenerator.cpu(plan.serverPid())))
                .withWindow(startMs, endMs);
    }

    private static int seconds(long ms) {
        return (int) Math.max(1, Math.ceil(ms / 1000.0));
    }

    private String wrk(String url, int connections, int threads, int seconds) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                executable.toString(),
                "-t" + Math.min(threads, connections),
                "-c" + connections,
                "-d" + seconds + "s",
                "--timeout",
                "2s",
                "--latency",
                url));
        return Tools.run(command, seconds + 30L);
    }

    private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in ([\\d.]+)(us|ms|s|m)");
    private static final Pattern PERCENTILE =
            Pattern.compile("^\\s*(50|99)(?:\\.0+)?%\\s+([\\d.]+)(us|ms|s|m)\\s*$", Pattern.MULTILINE);
    private static final Pattern MAX =
            Pattern.compile("^\\s*Latency\\s+\\S+\\s+\\S+\\s+([\\d.]+)(us|ms|s|m)", Pattern.MULTILINE);
    private static final Pattern SOCKET_ERRORS =
            Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");
    private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([\\d.]+)");

    /** Reads wrk's report; the parts it leaves out when all is well (errors) count as zero. */
    static LoadResult parse(String report, int connections, Double serverCpuSeconds) throws IOException {
        Matcher m = REQUESTS.matcher(report);
        if (!m.find()) {
            throw new IOException("cannot read wrk's report (no \"N requests in T\" line):\n" + report);
        }
        long requests = Long.parseLong(m.group(1));
        double seconds = Tools.millis(m.group(2), m.group(3)) / 1000.0;
        Double p50 = null;
        Double p99 = null;
        Matcher pm = PERCENTILE.matcher(report);
        while (pm.find()) {
            double ms = Tools.millis(pm.group(2), pm.group(3));
            if (pm.group(1).equals("50")) {
                p50 = ms;
            } else {
                p99 = ms;
            }
        }
        Matcher mm = MAX.matcher(report);
        Double max = mm.find() ? Tools.millis(mm.group(1), mm.group(2)) : null;
        long connect = 0, read = 0, write = 0, timeout = 0;
        Matcher em = SOCKET_ERRORS.matcher(report);
        if (em.find()) {
            connect = Long.parseLong(em.group(1));
            read = Long.parseLong(em.group(2));
            write = Long.parseLong(em.group(3));
            timeout = Long.parseLong(em.group(4));
        }
        Matcher nm = NON_2XX.matcher(report);
        long non2xx = nm.find() ? Long.parseLong(nm.group(1)) : 0;
        Matcher rm = RATE.matcher(report);
        double rate = rm.find() ? Double.parseDouble(rm.group(1)) : requests / seconds;
        return new LoadResult(
                "wrk",
                connections,
                requests,
                seconds,
                rate,
                p50,
                p99,
                max,
                connect,
                read,
                write,
                timeout,
                non2xx,
                serverCpuSeconds,
                null);
    }
}
