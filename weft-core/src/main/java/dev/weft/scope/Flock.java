package dev.weft.scope;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The threads of one scope, kept as the JDK's {@code ThreadFlock} keeps its own: the forked
 * subtasks, the threads spawned in the scope, the owner's wait for them to end, and the sweep
 * that interrupts them.
 *
 * <p>The fork/complete path takes no lock and shares no contended counter with the owner (a
 * lock, or a shared concurrent set, there made a fork cost several bare virtual threads):
 *
 * <ul>
 *   <li><b>Forks.</b> The owner alone appends to {@code forked} ({@link #publish}) and publishes the
 *       new count with a volatile write; a sweep reads the count first, then the array, so it sees
 *       every subtask counted. A subtask clears its thread when it ends, so a stale read only
 *       interrupts a thread that finished its task.
 *   <li><b>Publish, then re-check.</b> After appending, {@link #publish} reads the scope's state;
 *       a canceller writes the state, then sweeps. Both are volatile: one sees the other, so every
 *       subtask is either interrupted by the sweep or never started. (ScopeCoreLincheckTest
 *       checks this; only the owner reads the count exactly: another thread may see a subtask
 *       counted that a fork is withdrawing.)
 *   <li><b>Completions.</b> Each subtask ends once ({@link #ended}): {@code completed} never
 *       exceeds the count, and the forks are live while it is below.
 *   <li><b>The owner's wait.</b> The owner sets {@code ownerWaiting} under the lock, then checks
 *       the count; a completion increments {@code completed}, then takes the lock to signal only
 *       when the owner waits and it was the last: a scope of a million forks touches the lock
 *       about once, and no wake-up is lost (one of the two sees the other's write).
 *   <li><b>Spawned threads.</b> Rare, so under the lock: added only while the scope's state is
 *       OPEN (checked under the lock), removed when they end, interrupted by a sweep that copies
 *       the set under the lock after the state left OPEN, so none is added unseen.
 * </ul>
 */
final class Flock {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private volatile Subtask<?>[] forked = new Subtask<?>[16]; // written by the owner only
    private volatile long forkCount; // written by the owner only
    private final AtomicLong completed = new AtomicLong();
    private volatile boolean ownerWaiting;
    private final Set<Thread> spawned = new HashSet<>(); // guarded by lock

    /** Appends a forked subtask for sweeps to see; counts it as live. Owner only. */
    private void add(Subtask<?> subtask) {
        Subtask<?>[] a = forked;
        int n = (int) forkCount;
        if (n == a.length) {
            a = Arrays.copyOf(a, n * 2);
            forked = a;
        }
        a[n] = subtask;
        forkCount = n + 1;
    }

    /**
     * Publishes {@code subtask}, whose thread is {@code thread}, and re-checks the state (see
     * above): true when the owner may start the thread now; false when the state left OPEN
     * meanwhile, and the subtask, which must never start, is CANCELLED and counted ended. Owner only.
     */
    boolean publish(Subtask<?> subtask, Thread thread, ScopeState state) {
        subtask.thread = thread; // before it is published: a sweep that sees the subtask sees its thread
        add(subtask);
        if (state.isCancelled()) {
            subtask.cancelUnstarted();
            ended();
            return false;
        }
        return true;
    }

    /**
     * Starts {@code task} on a thread of {@code threads} that belongs to the flock until it ends,
     * if the state is still OPEN; null if not (nothing started).
     */
    Thread spawn(ThreadFactory threads, Runnable task, ScopeState state) {
        Thread t = threads.newThread(() -> {
            try {
                task.run();
            } finally {
                spawnEnded(Thread.currentThread());
            }
        });
        if (!addSpawned(t, state)) {
            return null;
        }
        try {
            t.start();
        } catch (Throwable e) {
            spawnEnded(t); // never ran, so close must not wait for it
            throw e;
        }
        return t;
    }

    /** One more forked subtask ended; wakes the owner if it waits and this was the last. */
    void ended() {
        long done = completed.incrementAndGet();
        if (ownerWaiting && done >= forkCount) {
            lock.lock();
            try {
                idle.signalAll(); // join waits for the forks; close also for spawned threads
            } finally {
                lock.unlock();
            }
        }
    }

    /** Subtasks forked and not yet ended. */
    long running() {
        return forkCount - completed.get();
    }

    /** Adds {@code t}, spawned in the scope, if the scope is still {@code OPEN}; false if not. */
    private boolean addSpawned(Thread t, ScopeState state) {
        lock.lock();
        try {
            if (state.isCancelled()) {
                return false;
            }
            spawned.add(t);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A spawned thread ended (or never started): close no longer waits for it. */
    private void spawnEnded(Thread t) {
        lock.lock();
        try {
            spawned.remove(t);
            if (spawned.isEmpty()) {
                idle.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits, in the owner, until every forked subtask has ended (and with {@code spawnedToo} every
     * spawned thread), running {@code onInterrupt} at each interrupt and waiting on. Returns
     * whether the owner was interrupted.
     */
    boolean await(boolean spawnedToo, Runnable onInterrupt) {
        boolean interrupted = false;
        lock.lock();
        try {
            ownerWaiting = true;
            while (running() > 0 || (spawnedToo && !spawned.isEmpty())) {
                try {
                    idle.await();
                } catch (InterruptedException e) {
                    interrupted = true;
                    onInterrupt.run();
                }
            }
            ownerWaiting = false;
        } finally {
            lock.unlock();
        }
        return interrupted;
    }

    /**
     * The sweep, after the scope's state left OPEN: interrupts every subtask still running and
     * every spawned thread, except the calling thread.
     */
    void interruptAll() {
        List<Thread> background;
        lock.lock();
        try {
            background = List.copyOf(spawned);
        } finally {
            lock.unlock();
        }
        Thread self = Thread.currentThread();
        int n = (int) forkCount; // read the count first: the array is at least as new
        Subtask<?>[] a = forked;
        for (int i = 0; i < n; i++) {
            Thread t = a[i].thread;
            if (t != null && t != self) {
                t.interrupt();
            }
        }
        for (Thread t : background) {
            if (t != self) {
                t.interrupt();
            }
        }
    }
}
