package dev.weft.lab.scenarios.http;

import java.util.ArrayList;
import java.util.List;

/**
 * Two servers measured in paired rounds by one load JVM (decision 0815): the load's connections (or
 * WebSockets) to both stay open for the whole pair; {@link #open} warms each up alone; each
 * {@link #round} measures a slice of each, in parts interleaved a b b a ... (decision 0825), while the
 * other's connections stay open and quiet. A round's parts are a fraction of a second apart and no
 * round pays for opening its connections, so drift on a shared machine hits both alike.
 */
final class PairedLoad implements AutoCloseable {

    /** A load whose closed loops can be paused and resumed while its connections stay open. */
    interface Alternating {
        /** Starts every connection's loop again. */
        void resume();

        /** Stops sending, and waits (bounded) for the requests in flight to complete. */
        void pause() throws InterruptedException;

        /**
         * Measures one window of {@code durationMs} of the running loops, then pauses them (the
         * figures are read once nothing is in flight). Unless {@code fresh}, the window adds to
         * those measured since the last fresh one, and the result is theirs together: one slice
         * measured in parts (decision 0825).
         */
        LoadResult measureThenPause(long durationMs, boolean fresh) throws InterruptedException;

        /** Closes the connections. */
        void close();
    }

    /** One round's slices: server a's and server b's. */
    record RoundResult(LoadResult a, LoadResult b) {}

    private final Alternating a;
    private final Alternating b;

    private PairedLoad(Alternating a, Alternating b) {
        this.a = a;
        this.b = b;
    }

    /** Pairs two open loads (paused), and warms each up alone for {@code warmupMs}. */
    static PairedLoad open(Alternating a, Alternating b, long warmupMs) throws InterruptedException {
        PairedLoad p = new PairedLoad(a, b);
        for (Alternating s : List.of(a, b)) {
            s.resume();
            Thread.sleep(warmupMs);
            s.pause();
        }
        return p;
    }

    /**
     * One round: a slice of {@code sliceMs} of each server, measured in {@code parts} equal parts
     * interleaved a b b a a b b a ... ({@code aFirst}; b a a b ... otherwise), so that whatever
     * changes on the machine within the round weighs on both alike, a steady drift cancelling
     * (decision 0825); one part each (a b) is the slice of decision 0815. Consecutive parts of one
     * server run as one stretch; each stretch after {@code settleMs} of its loops running unmeasured.
     * Each side's result is its parts together: their requests, seconds, CPU and latencies, its
     * window from its first part's start to its last part's end.
     */
    RoundResult round(boolean aFirst, long settleMs, long sliceMs, int parts) throws InterruptedException {
        if (parts < 1 || sliceMs < parts) {
            throw new IllegalArgumentException(
                    "a round needs at least one part of at least 1 ms; got " + parts + " parts of " + sliceMs + " ms");
        }
        List<Alternating> order = new ArrayList<>();
        for (int p = 0; p < parts; p++) {
            boolean aHere = (p % 2 == 0) == aFirst;
            order.add(aHere ? a : b);
            order.add(aHere ? b : a);
        }
        long partMs = sliceMs / parts;
        LoadResult ra = null;
        LoadResult rb = null;
        for (int i = 0; i < order.size(); ) {
            Alternating s = order.get(i);
            int run = 1;
            while (i + run < order.size() && order.get(i + run) == s) {
                run++;
            }
            boolean fresh = s == a ? ra == null : rb == null;
            s.resume();
            Thread.sleep(settleMs);
            LoadResult r = s.measureThenPause(run * partMs, fresh);
            if (s == a) {
                ra = r;
            } else {
                rb = r;
            }
            i += run;
        }
        return new RoundResult(ra, rb);
    }

    @Override
    public void close() {
        try {
            a.close();
        } finally {
            b.close();
        }
    }
}
