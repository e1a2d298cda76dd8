package dev.weft.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One pooled resource and its bookkeeping: what a {@link Lease} refers to. Opaque outside the
 * package: a subclass of {@link Lease} receives one in {@link Pool#borrow(java.time.Duration,
 * java.util.function.Function)} and passes it to {@link Lease#Lease(Slot)}, nothing else.
 *
 * <p>Its {@code state} is the hand-off's claim ({@link HandOff}): {@code IDLE} (free, anyone
 * allowed by the barging rule may claim it with a CAS), {@code BORROWED} (one lease holds it) or
 * {@code REMOVED} (taken out for destruction; a late return of it does nothing). The plain fields
 * are written by the thread that holds the claim and published by the CAS that ends it.
 *
 * @param <T> the resource type
 */
public final class Slot<T> {

    static final int IDLE = 0;
    static final int BORROWED = 1;
    static final int REMOVED = 2;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Slot.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Pool<T> pool;
    final T resource;
    final long createdAt;

    @SuppressWarnings("unused") // through STATE
    private volatile int state;
    /**
     * When it was last handed out (or created): written by the borrower after its claim, read by
     * the next one after its own (the CAS chain orders them). The pool reads the clock once per
     * borrow and never on return, so "idle since" is bounded by this from below: a resource
     * last handed out longer ago than {@code validateAfter} is validated, which includes every
     * one idle that long (decision 0608).
     */
    long lastBorrowed;
    /**
     * Set by the housekeeper once the resource is past {@code maxLifetime} while borrowed: its
     * return destroys it (the return path reads no clock).
     */
    volatile boolean retired;
    /** Housekeeper only: the {@link #lastBorrowed} it saw when it first found the slot idle. */
    long idleSeenBorrowed;
    /** Housekeeper only: when it first found the slot idle since that borrow, or {@link #NOT_SEEN_IDLE}. */
    long idleSince = NOT_SEEN_IDLE;

    /** {@link #idleSince} of a slot the housekeeper has not found idle since its last borrow. */
    static final long NOT_SEEN_IDLE = Long.MIN_VALUE;
    /**
     * Borrows of it that did not wait, counted by each holder on the slot's own cache line (a
     * pool-wide counter would be one more line that every borrow on every core writes); summed
     * by {@link Pool#stats()}, and into the pool's history when the slot is destroyed.
     */
    long immediateBorrows;
    /**
     * The id of the virtual thread that returned it last (0: none), written by that thread before
     * its CAS to IDLE: with {@link HandOff}'s table of returned slots, a virtual thread finds the
     * slot it returned last and takes it again first. A hint, read racily; the CAS decides.
     */
    long returnedBy;
    /** When the current borrow began; written after the claim, read by the leak check. */
    volatile long borrowedAt;
    /** Leak detection only (leakThreshold > 0): the current borrower and its stack. */
    volatile String borrower = "";

    volatile StackTraceElement[] borrowStack;
    volatile boolean leakReported;

    Slot(Pool<T> pool, T resource, long createdAt, int state) {
        this.pool = pool;
        this.resource = resource;
        this.createdAt = createdAt;
        this.lastBorrowed = createdAt;
        this.state = state;
    }

    int state() {
        return state;
    }

    boolean cas(int from, int to) {
        return STATE.compareAndSet(this, from, to);
    }
}
