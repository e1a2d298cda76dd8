package dev.weft.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The hand-off kernel of a {@link Pool}: its slots (open resources), its FIFO queue of parked
 * borrowers, and the one lock that orders them. It creates, validates and destroys nothing; it
 * tells the pool that borrowers wait through one callback ({@code onWaiting}).
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li><b>Fast path, no lock.</b> A borrower claims a slot by CAS {@code IDLE -> BORROWED},
 *       scanning the slots in order: a platform thread from the slot it claimed last (its own
 *       cache line, and two threads that keep to their own slots never touch each other's), a
 *       virtual thread from the first, after it tried the slot it returned last, if that one is
 *       free (found in a small table of returned slots by the thread's id, so a virtual thread
 *       that borrows again and again keeps to its slot, as a platform thread does, without a
 *       thread-local; a virtual thread that never borrowed starts at the first slot, so an idle
 *       pool still shrinks). While borrowers are parked it must first take a
 *       <em>pass</em> (one CAS on {@code passes}, which counts how often the head waiter was
 *       overtaken); when {@code passes == bound} no pass is given and it queues like everyone
 *       else. A return is a CAS {@code BORROWED -> IDLE} and, only if someone waits,
 *       {@link #signal}.</li>
 *   <li><b>Slow path, under the lock.</b> A borrower appends itself to {@code waiters},
 *       publishes {@code head} and then {@code waiting}, and (only as the head) tries to claim
 *       once more; else it parks. A woken head takes the lock and claims; if a barger was faster
 *       it clears its {@code awake} flag, claims once more, and parks again.</li>
 *   <li><b>Signal (returner).</b> Below the bound, without the lock: the head is woken (once:
 *       its {@code awake} flag is set by CAS until it has tried) and the slot stays free for
 *       whoever comes first. At the bound, under the lock: the returned slot goes straight to the
 *       head.</li>
 * </ul>
 *
 * <h2>Invariants</h2>
 * <ol>
 *   <li>A slot is held by at most one lease: only a successful CAS from {@code IDLE} hands it
 *       out ({@link #give} hands out a slot it claimed itself, or a new one not yet visible).</li>
 *   <li>No slot stays {@code IDLE} while a borrower is parked and nobody is awake to take it.
 *       Each pair of writers and readers is a volatile write-then-read on both sides, so one of
 *       the two sees the other: whoever makes a slot {@code IDLE} reads {@code waiting} and then
 *       {@code head} afterwards, against the waiter's publish-then-claim; a signal that read a
 *       head just before it was served or left is made good by that head, which publishes the
 *       next head and then wakes it if a slot is free; and a signal that found the head still
 *       {@code awake} is made good by the head, which clears {@code awake} and then claims once
 *       more before it parks.</li>
 *   <li>Waiters are served in arrival order among themselves; the head is overtaken by at most
 *       {@code bound} borrowers that arrived after it started waiting (decision 0603). A waiter
 *       that arrived behind k others is therefore served after at most (k + 1) x (bound + 1)
 *       hand-outs.</li>
 *   <li>Nothing slow runs under the lock, and nobody spins: a borrower that cannot claim parks
 *       (decision 0606 measured a short spin of platform threads before parking: it cost
 *       throughput on 2 cores).</li>
 * </ol>
 *
 * @param <T> the resource type
 */
final class HandOff<T> {

    /** What {@link #close()} leaves in every waiter's outcome. */
    static final Object CLOSED = new Object();

    private static final VarHandle PASSES;
    private static final VarHandle AWAKE;

    static {
        try {
            PASSES = MethodHandles.lookup().findVarHandle(HandOff.class, "passes", int.class);
            AWAKE = MethodHandles.lookup().findVarHandle(Waiter.class, "awake", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final int bound;
    private final Runnable onWaiting;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled (after close) whenever a slot is removed. */
    private final Condition removed = lock.newCondition();

    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    /** Copy-on-write under the lock; read without it. */
    private volatile Slot<T>[] slots;
    /** waiters.peekFirst(), published (before {@code waiting}) for the lock-free signal. */
    private volatile Waiter head;
    /** waiters.size(), published for the fast path. */
    private volatile int waiting;

    @SuppressWarnings("unused") // through PASSES
    private volatile int passes;

    private volatile boolean closed;

    /** Per platform thread, the index of the slot it claimed last (a hint; see claim()). */
    private final ThreadLocal<int[]> lastClaimed = ThreadLocal.withInitial(() -> new int[1]);

    /** Entries of {@link #returned}: a power of two, so that an id's entry is its low bits. */
    private static final int RETURNED_ENTRIES = 64;
    /**
     * Array elements between two entries of {@link #returned}: 16 references are at least a
     * 64-byte cache line, so two carriers writing their threads' entries do not share a line.
     */
    private static final int RETURNED_STRIDE = 16;

    /**
     * The slot a virtual thread returned last, at the entry of its id (a hint that a slot's
     * {@link Slot#returnedBy} confirms; threads whose ids share an entry overwrite each other's,
     * which only sends one of them to the ordinary scan). A virtual thread has no cheap
     * per-thread field for this: a thread-local would allocate a map in every virtual thread
     * that borrows once.
     */
    private final Slot<?>[] returned = new Slot<?>[RETURNED_ENTRIES * RETURNED_STRIDE];

    /**
     * @param name      the pool's name, for the closed-pool error
     * @param bound     how many later borrowers may overtake the head waiter (at least 0)
     * @param onWaiting called, without the lock, after a borrower started waiting
     */
    @SuppressWarnings("unchecked")
    HandOff(String name, int bound, Runnable onWaiting) {
        this.name = name;
        this.bound = bound;
        this.onWaiting = onWaiting;
        this.slots = (Slot<T>[]) new Slot<?>[0];
    }

    // ---------------------------------------------------------------- borrowing

    /** The fast path: a free slot this caller may take now, claimed, or null. */
    Slot<T> poll() {
        if (waiting != 0) {
            int p = passes;
            if (p >= bound || !PASSES.compareAndSet(this, p, p + 1)) {
                return null;
            }
        }
        return claim();
    }

    /**
     * The slow path: queues the caller and parks until a slot is claimed for or by it, or until
     * {@code deadline} (System.nanoTime()).
     *
     * @return the claimed slot, or null at the deadline
     * @throws PoolClosedException  if closed before or while waiting
     * @throws InterruptedException if interrupted while waiting (a slot handed to it meanwhile
     *                              goes back through its pool)
     */
    Slot<T> take(long deadline) throws InterruptedException {
        Waiter w = new Waiter(Thread.currentThread());
        lock.lock();
        try {
            if (closed) {
                throw new PoolClosedException(name, "pool \"" + name + "\" is closed; borrow from an open pool");
            }
            waiters.addLast(w);
            published(); // before the claim (invariant 2)
            if (waiters.peekFirst() == w) {
                Slot<T> s = claim();
                if (s != null) {
                    servedLocked();
                    return s;
                }
            }
        } finally {
            lock.unlock();
        }
        onWaiting.run();
        while (true) {
            Object o = w.outcome;
            if (o != null) {
                return outcome(o);
            }
            if (Thread.interrupted()) {
                Slot<T> s = cancel(w);
                if (s != null && release(s)) {
                    s.pool.destroy(List.of(s), "returned after close"); // handed to it, closed since
                }
                throw new InterruptedException("interrupted while waiting for a resource of pool \"" + name + "\"");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return cancel(w);
            }
            LockSupport.parkNanos(this, left);
            lock.lock();
            try {
                if (w.outcome == null && waiters.peekFirst() == w) {
                    Slot<T> s = claim();
                    if (s == null) {
                        // The next signal wakes it again; a slot freed before this write was
                        // signalled to a head still awake, so look once more after it (invariant 2).
                        w.awake = false;
                        s = claim();
                    }
                    if (s != null) {
                        servedLocked();
                        return s;
                    }
                }
            } finally {
                lock.unlock();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private Slot<T> outcome(Object o) {
        if (o == CLOSED) {
            throw new PoolClosedException(
                    name,
                    "pool \"" + name
                            + "\" was closed while this borrower waited for a resource; borrow from an open pool");
        }
        return (Slot<T>) o;
    }

    /** Withdraws a waiter; returns the slot handed to it meanwhile, if any. */
    private Slot<T> cancel(Waiter w) {
        lock.lock();
        try {
            Object o = w.outcome;
            if (o != null) {
                return outcome(o);
            }
            boolean first = waiters.peekFirst() == w;
            waiters.remove(w);
            published();
            if (first) {
                passes = 0;
                wakeHeadIfFreeLocked();
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** The head claimed a slot itself: it leaves, and the next head is woken if one is free. */
    private void servedLocked() {
        waiters.pollFirst();
        published();
        passes = 0;
        wakeHeadIfFreeLocked();
    }

    private void wakeHeadIfFreeLocked() {
        Waiter h = waiters.peekFirst();
        if (h != null && anyIdle()) {
            h.wake();
        }
    }

    /** Publishes the queue's head and size (under the lock), the head first. */
    private void published() {
        head = waiters.peekFirst();
        waiting = waiters.size();
    }

    /**
     * Claims the first free slot, scanning from the one this platform thread claimed last (its
     * cache line is likely still the thread's own, and two threads that stay on their own slots
     * do not contend); a virtual thread first tries the slot it returned last, then scans from
     * the first slot.
     */
    private Slot<T> claim() {
        Slot<T>[] all = slots;
        int n = all.length;
        Thread me = Thread.currentThread();
        int[] last = null;
        if (me.isVirtual()) {
            Slot<T> mine = returnedBy(me.threadId());
            if (mine != null && mine.state() == Slot.IDLE && mine.cas(Slot.IDLE, Slot.BORROWED)) {
                return mine; // removed slots are never IDLE again
            }
        } else {
            last = lastClaimed.get();
        }
        int i = last == null || last[0] >= n ? 0 : last[0];
        for (int k = 0; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
            Slot<T> s = all[i];
            if (s.state() == Slot.IDLE && s.cas(Slot.IDLE, Slot.BORROWED)) {
                if (last != null) {
                    last[0] = i;
                }
                return s;
            }
        }
        return null;
    }

    /** The slot the virtual thread {@code id} returned last, if the table still holds it. */
    @SuppressWarnings("unchecked")
    private Slot<T> returnedBy(long id) {
        Slot<T> s = (Slot<T>) returned[entry(id)];
        return s != null && s.returnedBy == id ? s : null;
    }

    private static int entry(long threadId) {
        return ((int) threadId & (RETURNED_ENTRIES - 1)) * RETURNED_STRIDE;
    }

    private boolean anyIdle() {
        for (Slot<T> s : slots) {
            if (s.state() == Slot.IDLE) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- returning and adding

    /**
     * Makes a borrowed slot free again and lets a waiter have it.
     *
     * @return true if the caller must destroy the slot's resource instead: the kernel closed
     *         meanwhile and the caller took the slot back out (a slot that close() removed while
     *         it was borrowed is already destroyed: false)
     */
    boolean release(Slot<T> s) {
        // A slot removed while borrowed (close) is destroyed already: free() fails, nothing to do.
        return free(s) && closed && remove(s, Slot.IDLE); // close() may have missed it: read after the CAS
    }

    /** BORROWED -> IDLE, then a waiter is signalled; false if the slot was not borrowed. */
    boolean free(Slot<T> s) {
        Thread me = Thread.currentThread();
        if (me.isVirtual() && s.state() == Slot.BORROWED) { // remembered while the slot is still held
            long id = me.threadId();
            s.returnedBy = id;
            returned[entry(id)] = s;
        }
        if (!s.cas(Slot.BORROWED, Slot.IDLE)) {
            return false;
        }
        if (waiting != 0) { // read after the CAS (invariant 2)
            signal(s);
        }
        return true;
    }

    private void signal(Slot<T> s) {
        if (passes < bound) {
            // Below the bound the slot stays free for whoever claims first: wake the head, without
            // the lock. A head read just before it was served or left is woken for nothing; the
            // next head is then woken by whoever served it (it reads the slots after publishing).
            Waiter h = head;
            if (h != null && s.state() == Slot.IDLE) { // a barger that took it signals on its own return
                h.wake();
            }
            return;
        }
        lock.lock();
        try {
            if (waiters.peekFirst() == null) {
                return;
            }
            if (passes >= bound) {
                if (s.cas(Slot.IDLE, Slot.BORROWED)) {
                    give(s);
                }
            } else if (s.state() == Slot.IDLE) {
                waiters.peekFirst().wake();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Hands the claimed slot {@code s} to the head waiter (under the lock; there is one). */
    private void give(Slot<T> s) {
        Waiter h = waiters.pollFirst();
        published();
        passes = 0;
        h.outcome = s;
        LockSupport.unpark(h.thread);
        wakeHeadIfFreeLocked();
    }

    /**
     * Adds a new slot (state BORROWED, not yet visible): to the head waiter if there is one, else
     * free.
     *
     * @return false if the kernel is closed (the caller destroys the resource)
     */
    boolean add(Slot<T> s) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            Slot<T>[] old = slots;
            Slot<T>[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = s;
            slots = grown;
            if (waiters.isEmpty()) {
                s.cas(Slot.BORROWED, Slot.IDLE);
            } else {
                give(s);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a slot out if it is in state {@code from} (CAS to REMOVED); the caller destroys its
     * resource.
     *
     * @return whether this caller removed it
     */
    boolean remove(Slot<T> s, int from) {
        if (!s.cas(from, Slot.REMOVED)) {
            return false;
        }
        lock.lock();
        try {
            Slot<T>[] old = slots;
            int i = Arrays.asList(old).indexOf(s);
            if (i >= 0) {
                @SuppressWarnings("unchecked")
                Slot<T>[] shrunk = (Slot<T>[]) new Slot<?>[old.length - 1];
                System.arraycopy(old, 0, shrunk, 0, i);
                System.arraycopy(old, i + 1, shrunk, i, old.length - i - 1);
                slots = shrunk;
            }
            forget(s);
            removed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Drops {@code s} from the table of returned slots, so that a removed slot is not kept reachable. */
    private void forget(Slot<T> s) {
        for (int e = 0; e < returned.length; e += RETURNED_STRIDE) {
            if (returned[e] == s) {
                returned[e] = null;
            }
        }
    }

    /** Removes every slot now in state {@code from}; returns them for destruction. */
    List<Slot<T>> removeAll(int from) {
        List<Slot<T>> out = new ArrayList<>();
        for (Slot<T> s : slots) {
            if (remove(s, from)) {
                out.add(s);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- closing

    /**
     * Closes the kernel: every waiter gets {@link #CLOSED}, later {@link #take}s fail, and the
     * free slots are removed and returned for destruction. Returns later: see {@link #release}.
     */
    List<Slot<T>> close() {
        lock.lock();
        try {
            closed = true;
            for (Waiter w; (w = waiters.pollFirst()) != null; ) {
                w.outcome = CLOSED;
                LockSupport.unpark(w.thread);
            }
            published();
        } finally {
            lock.unlock();
        }
        return removeAll(Slot.IDLE); // after closed = true (see release)
    }

    boolean isClosed() {
        return closed;
    }

    /** Waits until no slot is borrowed or {@code deadline} passes; true if none is. */
    boolean awaitNoneBorrowed(long deadline) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long left;
            while (count(Slot.BORROWED) > 0 && (left = deadline - System.nanoTime()) > 0) {
                removed.awaitNanos(left);
            }
            return count(Slot.BORROWED) == 0;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- reading

    /** Borrowers parked now (a volatile read: cheap enough for an admission check). */
    int waiting() {
        return waiting;
    }

    /** How many slots are in {@code state} now. */
    int count(int state) {
        int n = 0;
        for (Slot<T> s : slots) {
            if (s.state() == state) {
                n++;
            }
        }
        return n;
    }

    /** The slots now, for housekeeping. */
    Slot<T>[] slots() {
        return slots;
    }

    /** {in use, idle, waiting}, read under the lock so that they agree with each other. */
    int[] counts() {
        lock.lock();
        try {
            return new int[] {count(Slot.BORROWED), count(Slot.IDLE), waiting};
        } finally {
            lock.unlock();
        }
    }

    /** A parked borrower; {@code outcome} is the slot handed to it, or {@link #CLOSED}. */
    private static final class Waiter {
        final Thread thread;
        volatile Object outcome;
        /**
         * Woken to try a claim and not yet back: no second wake. Set by whoever wakes it (a CAS,
         * with or without the lock); cleared by the waiter itself, which then claims once more.
         */
        @SuppressWarnings("unused") // through AWAKE
        volatile boolean awake;

        Waiter(Thread thread) {
            this.thread = thread;
        }

        /** Unparks it unless someone already did since it last tried. */
        void wake() {
            if (!awake && AWAKE.compareAndSet(this, false, true)) {
                LockSupport.unpark(thread);
            }
        }
    }
}
