package dev.weft.lab.scenarios.http;

/**
 * A closed loop's request rate without the window's edges (decision 0850): per connection, the
 * completions after its first one inside a measured part, over the time from its first to its last
 * completion there, summed over the connections.
 *
 * <p>Why not completions / window seconds: at 120 connections with a 50 ms handler the connections
 * complete in step, a burst every ~50.4 ms, so a 1 s window holds 19 or 20 bursts depending only on
 * where its edges fall: a 5% step that decided goals (2,280 or 2,400 req/s for the same server).
 * Between a connection's own first and last completion every cycle is whole, so the figure is
 * exact for completions in step, and equals completions / seconds when they are dense (the time
 * lost at the two edges is, on average, one round trip, as is the interval the first completion
 * does not close).
 *
 * <p>One {@link Conn} per connection, written by its selector thread while a part is measured;
 * {@link Conn#endPart()} and {@link #rate} are called once the part is over (the loops paused), as
 * the generator's other figures are read. A slice measured in several parts (decision 0825) adds
 * each part's intervals and span: a connection's rate is its intervals over its spans, which leaves
 * out the time between parts.
 */
final class SpanRate {

    private SpanRate() {}

    /** One connection's completions in the current part, and its whole parts since the last reset. */
    static final class Conn {
        private long first;
        private long last;
        private int count;
        private long intervals;
        private long spanNanos;

        /** A response completed at {@code nanos} (System.nanoTime) inside a measured part. */
        void completed(long nanos) {
            if (count == 0) {
                first = nanos;
            }
            last = nanos;
            count++;
        }

        /** Closes the current part: its intervals and span join the totals; a single completion adds nothing. */
        void endPart() {
            if (count >= 2) {
                intervals += count - 1;
                spanNanos += last - first;
            }
            count = 0;
        }

        /** Forgets every part, before a fresh slice. */
        void reset() {
            count = 0;
            intervals = 0;
            spanNanos = 0;
        }

        /** This connection's completions per second over its spans, or 0 when it has none. */
        double rate() {
            return spanNanos <= 0 ? 0 : intervals * 1e9 / spanNanos;
        }

        /** Whether any interval was measured. */
        boolean measured() {
            return spanNanos > 0;
        }
    }

    /**
     * The connections' rates summed (their parts ended), or null when no connection completed two
     * responses in one part: the window was too short to tell.
     */
    static Double rate(Iterable<Conn> conns) {
        double sum = 0;
        boolean any = false;
        for (Conn c : conns) {
            if (c.measured()) {
                sum += c.rate();
                any = true;
            }
        }
        return any ? sum : null;
    }
}
