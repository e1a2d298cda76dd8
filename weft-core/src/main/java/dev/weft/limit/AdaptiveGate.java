package dev.weft.limit;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Permits that follow an {@link AdaptiveLimit}: a caller gets in only while fewer than
 * {@code limit.limit()} callers hold a permit and nobody waits before it; waiters are served first
 * come, first served whenever a permit comes back.
 *
 * <p>Implementation note: one lock guards the count of permits held and the queue of waiters, so
 * that "fewer than the limit hold a permit" is checked and acted on at once (a semaphore whose
 * permit count is adjusted after each sample would let callers in under a limit that had already
 * gone down). Each waiter has its own condition, so a release wakes exactly the waiter it serves.
 * The algorithm is called outside the lock.
 */
final class AdaptiveGate implements Gate {

    private final String name;
    private final AdaptiveLimit limit;
    private final int maxWaiting;
    private final Duration maxWait;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>(); // guarded by lock
    private int held; // guarded by lock
    private volatile int heldView;
    private volatile int waitingView;
    private final LongAdder rejected = new LongAdder();

    private static final class Waiter {
        final Condition turn;
        boolean granted; // guarded by lock
        int inFlight; // guarded by lock: the permits held once this one was granted

        Waiter(Condition turn) {
            this.turn = turn;
        }
    }

    AdaptiveGate(String name, AdaptiveLimit limit, int maxWaiting, Duration maxWait) {
        this.name = name;
        this.limit = limit;
        this.maxWaiting = maxWaiting;
        this.maxWait = maxWait;
    }

    @Override
    public Limiter.Permit acquire() throws InterruptedException {
        lock.lock();
        try {
            if (queue.isEmpty() && held < permits()) {
                return admit();
            }
            if (queue.size() >= maxWaiting) {
                rejected.increment();
                throw new LimitExceededException(name, permits(), maxWaiting, null);
            }
            Waiter w = new Waiter(lock.newCondition());
            queue.addLast(w);
            waitingView = queue.size();
            try {
                long nanos = maxWait == null ? Long.MAX_VALUE : maxWait.toNanos();
                while (!w.granted) {
                    if (maxWait == null) {
                        w.turn.await();
                    } else if (nanos <= 0) {
                        break;
                    } else {
                        nanos = w.turn.awaitNanos(nanos);
                    }
                }
            } catch (InterruptedException e) {
                if (w.granted) {
                    giveBack(); // granted as the interrupt came: an interrupted acquire takes no permit
                } else {
                    queue.remove(w);
                }
                throw e;
            } finally {
                waitingView = queue.size();
            }
            if (!w.granted) {
                queue.remove(w);
                waitingView = queue.size();
                rejected.increment();
                throw new LimitExceededException(name, permits(), maxWaiting, maxWait);
            }
            return new Limiter.Permit(this, System.nanoTime(), w.inFlight);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Limiter.Permit tryAcquire() {
        lock.lock();
        try {
            return queue.isEmpty() && held < permits() ? admit() : null;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock, with a permit free: takes it. */
    private Limiter.Permit admit() {
        heldView = ++held;
        return new Limiter.Permit(this, System.nanoTime(), held);
    }

    @Override
    public void release(Limiter.Permit permit, boolean sample, boolean dropped) {
        try {
            if (sample) {
                long latency = Math.max(1, System.nanoTime() - permit.startNanos);
                limit.onSample(permit.startNanos, latency, permit.inFlight, dropped);
            }
        } finally {
            lock.lock();
            try {
                giveBack();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Under the lock: one permit comes back; the waiters first in line get what is now free. */
    private void giveBack() {
        held--;
        int cap = permits();
        while (held < cap && !queue.isEmpty()) {
            Waiter next = queue.pollFirst();
            next.granted = true;
            next.inFlight = ++held;
            next.turn.signal();
        }
        heldView = held;
        waitingView = queue.size();
    }

    @Override
    public int permits() {
        return Math.max(1, limit.limit());
    }

    @Override
    public int inUse() {
        return heldView;
    }

    @Override
    public int waiting() {
        return waitingView;
    }

    @Override
    public long rejected() {
        return rejected.sum();
    }

    @Override
    public String toString() {
        return limit.toString();
    }
}
