package dev.weft.limit;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/** A fixed number of permits: a fair {@link Semaphore} with a bounded, timed wait. */
final class FixedGate implements Gate {

    private final String name;
    private final int permits;
    private final int maxWaiting;
    private final Duration maxWait;
    private final Semaphore semaphore;
    private final AtomicInteger waiting = new AtomicInteger();
    private final LongAdder rejected = new LongAdder();

    FixedGate(String name, int permits, int maxWaiting, Duration maxWait) {
        this.name = name;
        this.permits = permits;
        this.maxWaiting = maxWaiting;
        this.maxWait = maxWait;
        this.semaphore = new Semaphore(permits, true);
    }

    @Override
    public Limiter.Permit acquire() throws InterruptedException {
        // A fair semaphore's timed tryAcquire honours the queue: no barging past waiters.
        if (!semaphore.tryAcquire(0, TimeUnit.NANOSECONDS)) {
            await();
        }
        return new Limiter.Permit(this, 0, 0);
    }

    private void await() throws InterruptedException {
        // A place in the queue is claimed only while one is free, so waiting() never reads more
        // than maxWaiting, not even for a caller about to be rejected.
        for (; ; ) {
            int w = waiting.get();
            if (w >= maxWaiting) {
                rejected.increment();
                throw new LimitExceededException(name, permits, maxWaiting, null);
            }
            if (waiting.compareAndSet(w, w + 1)) {
                break;
            }
        }
        try {
            if (maxWait == null) {
                semaphore.acquire();
            } else if (!semaphore.tryAcquire(maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
                rejected.increment();
                throw new LimitExceededException(name, permits, maxWaiting, maxWait);
            }
        } finally {
            waiting.decrementAndGet();
        }
    }

    @Override
    public Limiter.Permit tryAcquire() {
        return semaphore.tryAcquire() ? new Limiter.Permit(this, 0, 0) : null;
    }

    @Override
    public void release(Limiter.Permit permit, boolean sample, boolean dropped) {
        semaphore.release();
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public int inUse() {
        return permits - semaphore.availablePermits();
    }

    @Override
    public int waiting() {
        return waiting.get();
    }

    @Override
    public long rejected() {
        return rejected.sum();
    }
}
