package dev.weft.limit;

/**
 * How a {@link Limiter} decides who gets in: a fixed number of permits ({@link FixedGate}) or an
 * adaptive limit ({@link AdaptiveGate}). The limiter's public API is the same over both.
 */
interface Gate {

    /** Takes a permit, waiting as the limiter's rules allow; see {@link Limiter#acquire()}. */
    Limiter.Permit acquire() throws InterruptedException;

    /** A permit if one is free now and nobody waits, else null; never waits, never rejects. */
    Limiter.Permit tryAcquire();

    /**
     * Gives {@code permit} back (called once per permit). With {@code sample}, the call it covered
     * is reported to an adaptive limit, as dropped when {@code dropped}.
     */
    void release(Limiter.Permit permit, boolean sample, boolean dropped);

    /** Callers allowed in at once now. */
    int permits();

    /** Callers holding a permit now. */
    int inUse();

    /** Callers waiting for a permit now. */
    int waiting();

    /** Callers rejected since the gate was made. */
    long rejected();
}
