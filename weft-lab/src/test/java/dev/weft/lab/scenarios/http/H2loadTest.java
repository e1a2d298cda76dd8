package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Reading h2load 1.52's report (text captured from real runs against the lab's weft-ring h2c server). */
class H2loadTest {

    private static final String CLEAN = """
            starting benchmark...
            spawning thread #0: 4 total client(s). Timing-based test with 0s of warm-up time and 1.5s of main duration for measurements.
            Application protocol: h2c
            Main benchmark duration is over for thread #0. Stopping all clients.
            Stopped all clients for thread #0

            finished in 1.61s, 202.67 req/s, 7.95KB/s
            requests: 304 total, 424 started, 304 done, 304 succeeded, 0 failed, 0 errored, 0 timeout
            status codes: 304 2xx, 0 3xx, 0 4xx, 0 5xx
            traffic: 11.93KB (12212) total, 2.51KB (2568) headers (space savings 89.44%), 3.86KB (3952) data
                                 min         max         mean         sd        +/- sd
            time for request:    82.52ms       1.34s    575.77ms    593.23ms    60.53%
            time for connect:       68us       137us       108us        29us    75.00%
            time to 1st byte:      1.28s       1.32s       1.30s     18.66ms    75.00%
            req/s           :      40.64       59.96       50.63       10.07   100.00%
            """;

    private static final String NOT_FOUND = """
            finished in 533.41ms, 2146.00 req/s, 60.12KB/s
            requests: 1073 total, 1093 started, 1073 done, 0 succeeded, 1073 failed, 0 errored, 0 timeout
            status codes: 0 2xx, 0 3xx, 1073 4xx, 0 5xx
                                 min         max         mean         sd        +/- sd
            time for request:      450us     12.10ms      1.80ms      1.10ms    80.00%
            """;

    @Test
    void readsACleanRun() throws IOException {
        H2load.Run run = H2load.parse(CLEAN, 120, 0.5);
        LoadResult r = run.load();
        assertEquals("h2load", r.generator());
        assertEquals(120, r.connections());
        assertEquals(304, r.requests());
        assertEquals(202.67, r.requestsPerSecond(), 1e-9);
        assertEquals(1.5, r.seconds(), 0.001, "the main duration, the rate's denominator");
        assertEquals(1340.0, r.maxMs(), 1e-9);
        assertEquals(575.77, run.meanMs(), 1e-9);
        assertNull(r.p50Ms(), "h2load prints no percentiles");
        assertEquals(0, r.errors());
        assertEquals(0, r.non2xx());
        assertEquals(0.5 * 1e6 / 304, r.serverCpuUsPerRequest(), 1e-9);
    }

    @Test
    void statusesThatAreNot2xxAreNon2xxNotErrors() throws IOException {
        LoadResult r = H2load.parse(NOT_FOUND, 20, null).load();
        assertEquals(1073, r.non2xx());
        assertEquals(0, r.readErrors(), "h2load's failed count includes the 4xx; they are not counted twice");
        assertEquals(12.10, r.maxMs(), 1e-9);
    }

    @Test
    void aReportWithoutItsSummaryIsRefused() {
        IOException e =
                assertThrows(IOException.class, () -> H2load.parse("connect to 127.0.0.1 port 1 failed\n", 120, null));
        assertEquals(true, e.getMessage().contains("cannot read h2load's report"));
    }
}
