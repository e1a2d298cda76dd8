package dev.weft.lab.scenarios.http;

import java.util.List;

/**
 * Two servers measured in paired rounds by one load JVM (decision 0815): the load's connections (or
 * WebSockets) to both stay open for the whole pair; {@link #open} warms each up alone; each
 * {@link #round} measures a slice of each, one after the other, the order given, while the other's
 * connections stay open and quiet. A round's two slices are a fraction of a second apart and no
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
         * figures are read once nothing is in flight).
         */
        LoadResult measureThenPause(long durationMs) throws InterruptedException;

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
     * One round: a slice of {@code sliceMs} of each server, {@code a}'s first or not, each after
     * {@code settleMs} of its loops running unmeasured.
     */
    RoundResult round(boolean aFirst, long settleMs, long sliceMs) throws InterruptedException {
        LoadResult ra = null;
        LoadResult rb = null;
        for (Alternating s : aFirst ? List.of(a, b) : List.of(b, a)) {
            s.resume();
            Thread.sleep(settleMs);
            LoadResult r = s.measureThenPause(sliceMs);
            if (s == a) {
                ra = r;
            } else {
                rb = r;
            }
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
