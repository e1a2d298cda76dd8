/**
 * Bounded concurrency for work on virtual threads: {@link dev.weft.limit.Limiter}, a bulkhead with
 * a bounded, timed wait and a clear rejection ({@link dev.weft.limit.LimitExceededException}).
 */
package dev.weft.limit;
