package dev.weft.scope;

import dev.weft.limit.Limiter;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The handshake that ends the owner's wait for a permit in {@code fork} when the scope is
 * cancelled from another thread (a failed subtask, the deadline).
 *
 * <p>The owner must tell an interrupt from a canceller from one from anyone else: only the latter
 * is the owner's own, cancels the scope and stays set for {@code join} to throw. The states:
 *
 * <pre>
 *   NOT_WAITING ──(owner: begin)──▶ WAITING ──(owner: end)────────────────────▶ NOT_WAITING
 *                                           ──(canceller: interrupts owner)──▶ INTERRUPTED
 *   INTERRUPTED ──(owner: end, clears the interrupt under the lock)──▶ NOT_WAITING
 * </pre>
 *
 * <p>Invariants: a canceller interrupts the owner only in WAITING, moving it to INTERRUPTED and
 * interrupting under {@code interrupting}; an owner that finds its wait taken over takes that
 * lock too, so it goes on only once the interrupt was delivered, and clears it, so no
 * canceller's interrupt leaks into the owner's code. (An outside interrupt at the same instant
 * as a cancel is absorbed by it; the scope is cancelled either way.) The owner publishes WAITING
 * before it reads the scope's state, and a canceller writes the state before it reads WAITING:
 * one of the two sees the other, so an owner never waits for a permit in a cancelled scope
 * without being interrupted. Parking on the lock rather than spinning keeps a virtual owner from
 * holding a carrier the canceller may need.
 */
final class PermitWait {

    private static final int NOT_WAITING = 0;
    private static final int WAITING = 1;
    private static final int INTERRUPTED = 2;

    private final AtomicInteger wait = new AtomicInteger(NOT_WAITING);
    private final ReentrantLock interrupting = new ReentrantLock();
    private final Thread owner;

    PermitWait(Thread owner) {
        this.owner = owner;
    }

    /**
     * In the owner: a permit of {@code limiter}, or null when the scope was or got cancelled
     * (a canceller's interrupt is cleared), or when someone else interrupted the owner: then
     * {@code cancel} runs and the interrupt stays set, for {@code join} to throw.
     */
    Limiter.Permit acquire(Limiter limiter, ScopeState state, Runnable cancel) {
        Limiter.Permit permit = null;
        InterruptedException outside = null;
        wait.set(WAITING);
        try {
            if (!state.isCancelled()) { // read after WAITING is published: a canceller sees one or the other
                permit = limiter.acquire();
            }
        } catch (InterruptedException e) {
            outside = e;
        } finally {
            if (!wait.compareAndSet(WAITING, NOT_WAITING)) {
                interrupting.lock(); // the canceller holds it until its interrupt is delivered
                try {
                    Thread.interrupted();
                    outside = null;
                    wait.set(NOT_WAITING);
                } finally {
                    interrupting.unlock();
                }
            }
        }
        if (outside != null) {
            cancel.run();
            Thread.currentThread().interrupt();
        }
        return permit;
    }

    /** In a canceller, after it cancelled the scope: ends the owner's wait for a permit, if it waits. */
    void interruptOwner() {
        if (wait.get() == WAITING) {
            interrupting.lock();
            try {
                if (wait.compareAndSet(WAITING, INTERRUPTED)) {
                    owner.interrupt();
                }
            } finally {
                interrupting.unlock();
            }
        }
    }
}
