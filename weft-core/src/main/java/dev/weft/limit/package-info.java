/**
 * Bounded concurrency for work on virtual threads: {@link dev.weft.limit.Limiter}, a bulkhead with
 * a bounded, timed wait and a clear rejection ({@link dev.weft.limit.LimitExceededException}),
 * whose permits are fixed or follow an {@link dev.weft.limit.AdaptiveLimit}.
 */
package dev.weft.limit;
