package dev.weft.lab.scenarios.http;

/**
 * What one measured load window produced, whichever generator ran it.
 *
 * @param generator         {@code wrk} or {@code built-in}
 * @param connections       connections kept busy
 * @param requests          responses completed inside the window
 * @param seconds           the window's length
 * @param requestsPerSecond requests / seconds
 * @param p50Ms             median latency, or null when nothing completed
 * @param p99Ms             99th-percentile latency, or null
 * @param maxMs             slowest response, or null (wrk: the slowest of its per-thread maxima)
 * @param connectErrors     failed connects
 * @param readErrors        failed reads (connections closed mid-response included)
 * @param writeErrors       failed writes
 * @param timeouts          responses slower than 2 s, and requests unanswered after 2 s at the end
 * @param non2xx            responses whose status is not 2xx (wrk: not 2xx or 3xx)
 * @param serverCpuSeconds  the server JVM's CPU time during the window, or null when unreadable
 * @param clientCpuSeconds  the load generator's CPU time during the window, or null (wrk)
 * @param windowStartMs     when the measured window opened (epoch milliseconds), or null: the server JVM
 *                          reads its allocated bytes over the window from these bounds
 * @param windowEndMs       when it closed (epoch milliseconds), or null
 * @param spanRequestsPerSecond the built-in generator's rate without the window's edges ({@link SpanRate}:
 *                          per connection, its completions after the first over the time from its first to
 *                          its last, summed), or null (other tools, or no connection completed twice)
 */
record LoadResult(
        String generator,
        int connections,
        long requests,
        double seconds,
        double requestsPerSecond,
        Double p50Ms,
        Double p99Ms,
        Double maxMs,
        long connectErrors,
        long readErrors,
        long writeErrors,
        long timeouts,
        long non2xx,
        Double serverCpuSeconds,
        Double clientCpuSeconds,
        Long windowStartMs,
        Long windowEndMs,
        Double spanRequestsPerSecond) {

    /** A result without the window's wall-clock bounds nor the edge-free rate (wrk's, h2load's, ...). */
    LoadResult(
            String generator,
            int connections,
            long requests,
            double seconds,
            double requestsPerSecond,
            Double p50Ms,
            Double p99Ms,
            Double maxMs,
            long connectErrors,
            long readErrors,
            long writeErrors,
            long timeouts,
            long non2xx,
            Double serverCpuSeconds,
            Double clientCpuSeconds) {
        this(
                generator,
                connections,
                requests,
                seconds,
                requestsPerSecond,
                p50Ms,
                p99Ms,
                maxMs,
                connectErrors,
                readErrors,
                writeErrors,
                timeouts,
                non2xx,
                serverCpuSeconds,
                clientCpuSeconds,
                null,
                null,
                null);
    }

    /** This result with the measured window's wall-clock bounds (epoch milliseconds). */
    LoadResult withWindow(long startMs, long endMs) {
        return copy(requestsPerSecond, startMs, endMs);
    }

    /**
     * This result with {@link #spanRequestsPerSecond} as its {@code requestsPerSecond} (decision
     * 0850), for loads whose connections complete in step; unchanged when it has none.
     */
    LoadResult spanRated() {
        return spanRequestsPerSecond == null ? this : copy(spanRequestsPerSecond, windowStartMs, windowEndMs);
    }

    private LoadResult copy(double rate, Long startMs, Long endMs) {
        return new LoadResult(
                generator,
                connections,
                requests,
                seconds,
                rate,
                p50Ms,
                p99Ms,
                maxMs,
                connectErrors,
                readErrors,
                writeErrors,
                timeouts,
                non2xx,
                serverCpuSeconds,
                clientCpuSeconds,
                startMs,
                endMs,
                spanRequestsPerSecond);
    }

    /** Completions over the window's seconds, whatever {@link #requestsPerSecond} holds. */
    double countRequestsPerSecond() {
        return seconds > 0 ? requests / seconds : 0;
    }

    /** Socket errors and timeouts together, as wrk's "Socket errors" line counts them. */
    long errors() {
        return connectErrors + readErrors + writeErrors + timeouts;
    }

    /** The server's CPU time per completed request, in microseconds, or null. */
    Double serverCpuUsPerRequest() {
        return serverCpuSeconds == null || requests == 0 ? null : serverCpuSeconds * 1e6 / requests;
    }

    /** The load generator's CPU time per completed request, in microseconds, or null. */
    Double clientCpuUsPerRequest() {
        return clientCpuSeconds == null || requests == 0 ? null : clientCpuSeconds * 1e6 / requests;
    }
}
