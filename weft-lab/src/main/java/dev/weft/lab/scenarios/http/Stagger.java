package dev.weft.lab.scenarios.http;

import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * When each connection of a paused closed loop sends again after a resume: evenly over one round
 * trip of the handler instead of all at once (decision 0860).
 *
 * <p>Why: 120 connections that all send at a slice's start complete together a round trip later and
 * send together again, in step for the whole slice; every cycle then carries a burst of 120
 * requests' worth of client and server CPU queued on the cores, which lengthens the round trip
 * (the @120 p50 went from 50.3-50.8 ms in 1 s windows to 51.5-53.9 ms in 200 ms slices) and makes a
 * request's latency its place in the burst. Started a round trip apart, the connections stay apart:
 * each sends its next request when its own response completes. {@link SpanRate} measures each
 * connection from its own first completion, so a staggered start biases no figure.
 *
 * <p>One per selector thread, used by that thread only. Connection {@code j} of the thread's list
 * has the generator-wide index {@code first + j * step} (the threads' connections interleaved) and
 * sends {@code spread * index / total} after the resume; a spread of 0 sends all at once, as before.
 *
 * @param <C> a connection
 */
final class Stagger<C> {

    private final List<C> conns;
    private final long[] offsets;
    /** Indexes into {@link #conns} still to send since the last resume, in the order they are due. */
    private final ArrayDeque<Integer> waiting = new ArrayDeque<>();

    private long resumedAt;

    /**
     * @param spreadNanos the time over which a resume's sends are spread (one round trip), or 0
     * @param total       the generator's connections, over every thread
     * @param first       the generator-wide index of this thread's first connection
     * @param step        the generator-wide index's step between this thread's connections (its threads)
     * @param conns       this thread's connections
     */
    Stagger(long spreadNanos, int total, int first, int step, List<C> conns) {
        if (spreadNanos < 0 || total < 1 || first < 0 || step < 1) {
            throw new IllegalArgumentException("a stagger needs a spread >= 0, connections, a first index >= 0 and a"
                    + " step >= 1; got " + spreadNanos + " ns, " + total + ", " + first + ", " + step);
        }
        this.conns = List.copyOf(conns);
        this.offsets = new long[conns.size()];
        for (int j = 0; j < offsets.length; j++) {
            offsets[j] = spreadNanos * Math.min(total - 1, first + (long) j * step) / total;
        }
    }

    /** A resume at {@code now}: every connection that {@code waits} is due at its offset from now. */
    void resume(long now, Predicate<C> waits) {
        waiting.clear();
        resumedAt = now;
        for (int j = 0; j < offsets.length; j++) {
            if (waits.test(conns.get(j))) {
                waiting.add(j); // offsets grow with j: the queue is in the order they are due
            }
        }
    }

    /** Hands every connection due by {@code now} to {@code send}, in order, and forgets it. */
    void sendDue(long now, Consumer<C> send) {
        while (!waiting.isEmpty() && now - resumedAt >= offsets[waiting.peek()]) {
            send.accept(conns.get(waiting.poll()));
        }
    }

    /**
     * How long the selector may wait at {@code now}: until the next connection is due (at least
     * 1 ms, the selector's resolution; the sends of that millisecond go together), else {@code idleMs}.
     */
    long waitMs(long now, long idleMs) {
        if (waiting.isEmpty()) {
            return idleMs;
        }
        long left = resumedAt + offsets[waiting.peek()] - now;
        return Math.max(1, Math.min(idleMs, (left + 999_999) / 1_000_000));
    }

    /** Whether a connection still waits for its send. */
    boolean pending() {
        return !waiting.isEmpty();
    }
}
