package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Reading wrk 4.1's report (text captured from real runs). */
class WrkTest {

    private static final String CLEAN = """
            Running 2s test @ http://127.0.0.1:33651/hello
              2 threads and 120 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency    79.10ms   53.52ms 329.44ms   90.71%
                Req/Sec     0.91k   309.62     1.23k    86.84%
              Latency Distribution
                 50%   58.73ms
                 75%   76.60ms
                 90%  129.87ms
                 99%  310.22ms
              3473 requests in 2.10s, 386.64KB read
            Requests/sec:   1651.55
            Transfer/sec:    183.86KB
            """;

    private static final String FAILING = """
            Running 1s test @ http://127.0.0.1:33651/missing
              2 threads and 1000 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency     2.10ms    6.13ms    1.20s   93.50%
                Req/Sec    10.98k     3.42k   15.27k    59.09%
              Latency Distribution
                 50%  350.00us
                 75%  680.00us
                 90%    3.21ms
                 99%   35.33ms
              24047 requests in 1.10s, 2.09MB read
              Socket errors: connect 3, read 4, write 5, timeout 6
              Non-2xx or 3xx responses: 24047
            Requests/sec:  21895.66
            Transfer/sec:      1.90MB
            """;

    @Test
    void readsACleanRun() throws IOException {
        LoadResult r = Wrk.parse(CLEAN, 120, 1.5);
        assertEquals("wrk", r.generator());
        assertEquals(3473, r.requests());
        assertEquals(2.10, r.seconds(), 1e-9);
        assertEquals(1651.55, r.requestsPerSecond(), 1e-9);
        assertEquals(58.73, r.p50Ms(), 1e-9);
        assertEquals(310.22, r.p99Ms(), 1e-9);
        assertEquals(329.44, r.maxMs(), 1e-9);
        assertEquals(0, r.errors());
        assertEquals(0, r.non2xx());
        assertEquals(1.5e6 / 3473, r.serverCpuUsPerRequest(), 1e-9);
        assertNull(r.clientCpuUsPerRequest());
    }

    @Test
    void readsErrorsAndUnits() throws IOException {
        LoadResult r = Wrk.parse(FAILING, 1000, null);
        assertEquals(0.35, r.p50Ms(), 1e-9);
        assertEquals(1200.0, r.maxMs(), 1e-9);
        assertEquals(3, r.connectErrors());
        assertEquals(4, r.readErrors());
        assertEquals(5, r.writeErrors());
        assertEquals(6, r.timeouts());
        assertEquals(18, r.errors());
        assertEquals(24047, r.non2xx());
        assertNull(r.serverCpuUsPerRequest());
    }

    @Test
    void refusesWhatIsNotAReport() {
        IOException e = assertThrows(IOException.class, () -> Wrk.parse("wrk: command not understood", 1, null));
        assertEquals(true, e.getMessage().startsWith("cannot read wrk's report"));
    }
}
