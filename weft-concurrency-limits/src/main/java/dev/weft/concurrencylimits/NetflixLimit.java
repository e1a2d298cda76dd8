package dev.weft.concurrencylimits;

import com.netflix.concurrency.limits.Limit;
import dev.weft.limit.AdaptiveLimit;
import java.util.Objects;

/**
 * One of Netflix's concurrency-limits algorithms as weft's {@link AdaptiveLimit}: give it to
 * {@link dev.weft.limit.Limiter#builder(String, AdaptiveLimit)}, or to weft-ring as {@code :limit}.
 * The algorithms are Netflix's, configured with their own builders:
 *
 * <pre>{@code
 * AdaptiveLimit vegas = NetflixLimit.of(VegasLimit.newBuilder().initialLimit(10).maxConcurrency(200).build());
 * AdaptiveLimit aimd = NetflixLimit.of(AIMDLimit.newBuilder().initialLimit(10).minLimit(1)
 *         .timeout(500, TimeUnit.MILLISECONDS).build());
 * AdaptiveLimit gradient = NetflixLimit.of(Gradient2Limit.newBuilder().minLimit(1).build());
 * Limiter api = Limiter.builder("api", vegas).maxWaiting(0).build();
 * }</pre>
 *
 * <ul>
 *   <li><b>AIMD</b> ({@code AIMDLimit}): grows by one while at least half the limit is in use and
 *       calls complete; multiplies by its backoff ratio (0.9) on a drop or a latency over its
 *       timeout. Simple and predictable; it needs a timeout that means "overloaded".</li>
 *   <li><b>Vegas</b> ({@code VegasLimit}): estimates the queue behind the limit from the latency
 *       against the lowest latency seen ({@code limit × (1 − minLatency / latency)}), grows while
 *       that queue is small and shrinks when it is large, so it settles just above the
 *       concurrency where latency starts to rise.</li>
 *   <li><b>Gradient2</b> ({@code Gradient2Limit}): compares the latency with its long-run average
 *       and moves the limit by their ratio plus a small queue allowance; tolerant of latency that
 *       drifts over time.</li>
 * </ul>
 *
 * <p>Netflix's algorithms are thread-safe (each sample is taken under the algorithm's own lock,
 * briefly; nothing blocks inside it). Note two of Netflix's builder defaults: AIMD's and
 * Gradient2's {@code minLimit} is 20, so a limit never falls below 20 unless you set it lower
 * (the Clojure constructors of {@code weft.concurrency-limits} default it to 1).
 */
public final class NetflixLimit implements AdaptiveLimit {

    private final Limit limit;

    private NetflixLimit(Limit limit) {
        this.limit = limit;
    }

    /**
     * {@code limit} as weft's adaptive limit.
     *
     * @throws NullPointerException if {@code limit} is null
     */
    public static NetflixLimit of(Limit limit) {
        return new NetflixLimit(Objects.requireNonNull(limit, "limit"));
    }

    /** The Netflix algorithm behind this limit. */
    public Limit delegate() {
        return limit;
    }

    /** The algorithm's current limit. */
    @Override
    public int limit() {
        return limit.getLimit();
    }

    /** Hands the sample to the algorithm ({@link Limit#onSample}). */
    @Override
    public void onSample(long startNanos, long latencyNanos, int inFlight, boolean dropped) {
        limit.onSample(startNanos, latencyNanos, inFlight, dropped);
    }

    /** The algorithm's own description, with its current limit. */
    @Override
    public String toString() {
        return limit.toString();
    }
}
