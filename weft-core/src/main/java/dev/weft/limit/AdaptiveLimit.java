package dev.weft.limit;

/**
 * A concurrency limit that adapts: an algorithm that watches completed calls (their latency,
 * whether they were dropped, how many were in flight) and moves the number of calls it lets in at
 * once. A {@link Limiter} built with {@link Limiter#builder(String, AdaptiveLimit)} enforces it:
 * it lets a caller in only while fewer than {@link #limit()} callers hold a permit, and reports
 * every permit given back to {@link #onSample}.
 *
 * <p>weft-core has no algorithm of its own; the module {@code weft-concurrency-limits} provides
 * AIMD, Vegas and Gradient2 (from Netflix's concurrency-limits), and an application may implement
 * this interface itself.
 *
 * <p>Implementations must be thread-safe: {@link #limit()} is read by every caller that asks for
 * a permit and {@link #onSample} is called by every caller that gives one back, concurrently.
 * Both are called on the callers' threads, often virtual ones, so they must not block.
 */
public interface AdaptiveLimit {

    /**
     * How many calls may be in at once now. A {@link Limiter} treats a value below 1 as 1, so
     * that it never stops admitting calls altogether (with none in flight, no sample could ever
     * raise the limit again).
     */
    int limit();

    /**
     * Reports one completed call.
     *
     * @param startNanos   {@link System#nanoTime()} when the call was let in
     * @param latencyNanos how long the call held its permit, in nanoseconds (at least 1)
     * @param inFlight     the calls holding a permit when this one was let in, itself included
     * @param dropped      true when the call was dropped: it timed out, or what it called shed it
     *                     (a sign of overload, which should lower the limit)
     */
    void onSample(long startNanos, long latencyNanos, int inFlight, boolean dropped);
}
