package dev.weft.scope;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scope's state: open, or how its outcome was settled first, and whether it is closed. One
 * atomic int in place of separate flags (cancelled, decided, timed out, cancelled by the owner,
 * closed), so "who came first" is one compare-and-set and never a question of flag order.
 *
 * <pre>
 *   OPEN ──(a completion or fork decides; the joiner threw)──▶ DECIDED
 *        ──(the deadline passed)─────────────────────────────▶ TIMED_OUT
 *        ──(the owner's cancel())────────────────────────────▶ DISCARDED
 *        ──(the owner interrupted; close)────────────────────▶ CANCELLED
 *   any  ──(close)──▶ the same | CLOSED   (an OPEN scope becomes CANCELLED | CLOSED)
 * </pre>
 *
 * <p>Invariants: the cause leaves OPEN once and never changes again (the first
 * {@link #cancel} wins; the others return false), so exactly one thread sweeps the scope's
 * threads (the one whose {@code cancel} returned true, or {@link #close} when it found the scope
 * OPEN); {@code CLOSED} is set once, by the owner, and never with OPEN. Every state other than
 * OPEN is "cancelled": no subtask starts or is accepted any more. What join does with each cause
 * is the scope's: DECIDED asks the joiner for the result, TIMED_OUT asks it first whether a
 * deadline is a failure, DISCARDED returns nothing, CANCELLED is an interrupted owner's (join
 * throws InterruptedException) or follows close (join is refused).
 *
 * <p>Thread-free: the model checker drives it directly (ScopeCoreLincheckTest).
 */
final class ScopeState {

    /** Forks start and completions count; nothing has settled the outcome. */
    static final int OPEN = 0;
    /** The joiner settled the outcome (a completion or fork asked to, or the joiner threw). */
    static final int DECIDED = 1;
    /** The deadline passed before anything else settled the outcome. */
    static final int TIMED_OUT = 2;
    /** The owner's {@code cancel()} came first: the owner discarded the outcome. */
    static final int DISCARDED = 3;
    /** Cancelled otherwise: the owner was interrupted, or the scope closed while open. */
    static final int CANCELLED = 4;
    /** A bit on top of the cause: {@code close()} has begun. */
    static final int CLOSED = 8;

    private final AtomicInteger state = new AtomicInteger(OPEN);

    /** Moves OPEN to {@code cause}; true if this call did (its caller then sweeps the scope's threads). */
    boolean cancel(int cause) {
        return state.compareAndSet(OPEN, cause);
    }

    /**
     * Marks the scope closed, cancelling it first if it is OPEN, in one step; returns the state
     * before (with {@link #CLOSED} set if it was closed already).
     */
    int close() {
        for (; ; ) {
            int s = state.get();
            if ((s & CLOSED) != 0 || state.compareAndSet(s, (s == OPEN ? CANCELLED : s) | CLOSED)) {
                return s;
            }
        }
    }

    /** True once anything settled the outcome or closed the scope. */
    boolean isCancelled() {
        return state.get() != OPEN;
    }

    /** True once {@link #close} has begun. */
    boolean isClosed() {
        return (state.get() & CLOSED) != 0;
    }

    /** What settled the outcome: OPEN, DECIDED, TIMED_OUT, DISCARDED or CANCELLED. */
    int cause() {
        return state.get() & ~CLOSED;
    }

    /** The state's name, for messages and toString. */
    static String name(int s) {
        String cause = switch (s & ~CLOSED) {
            case OPEN -> "open";
            case DECIDED -> "decided";
            case TIMED_OUT -> "timed out";
            case DISCARDED -> "cancelled by its owner";
            default -> "cancelled";
        };
        return (s & CLOSED) != 0 ? cause + ", closed" : cause;
    }

    @Override
    public String toString() {
        return name(state.get());
    }
}
