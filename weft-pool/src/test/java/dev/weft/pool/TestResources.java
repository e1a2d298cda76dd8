package dev.weft.pool;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A factory of numbered resources that counts what the pool does with them. */
final class TestResources implements ResourceFactory<TestResources.Res> {

    /** A resource: its number, whether it is broken, whether it was destroyed. */
    static final class Res {
        final int id;
        volatile boolean broken;
        volatile boolean destroyed;
        volatile int dirty;

        Res(int id) {
            this.id = id;
        }

        @Override
        public String toString() {
            return "Res" + id;
        }
    }

    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger destroyed = new AtomicInteger();
    final AtomicInteger validated = new AtomicInteger();
    final AtomicInteger creatingNow = new AtomicInteger();
    final AtomicInteger maxCreatingSeen = new AtomicInteger();
    final Set<Res> open = ConcurrentHashMap.newKeySet();
    volatile long createDelayMs;
    volatile RuntimeException failCreate;

    @Override
    public Res create() throws Exception {
        int now = creatingNow.incrementAndGet();
        maxCreatingSeen.accumulateAndGet(now, Math::max);
        try {
            if (createDelayMs > 0) {
                Thread.sleep(createDelayMs);
            }
            RuntimeException f = failCreate;
            if (f != null) {
                throw f;
            }
            Res r = new Res(created.incrementAndGet());
            open.add(r);
            return r;
        } finally {
            creatingNow.decrementAndGet();
        }
    }

    @Override
    public boolean validate(Res r) {
        validated.incrementAndGet();
        return !r.broken;
    }

    @Override
    public void reset(Res r) {
        r.dirty = 0;
    }

    @Override
    public void destroy(Res r) {
        if (r.destroyed) {
            throw new AssertionError(r + " destroyed twice");
        }
        r.destroyed = true;
        open.remove(r);
        destroyed.incrementAndGet();
    }

    /**
     * Joins {@code threads} while a virtual thread interrupts one of them at random every
     * millisecond until {@code end} (System.nanoTime()): the stress tests' interrupt storm.
     */
    static void joinInterruptingAtRandom(java.util.List<Thread> threads, long end) throws InterruptedException {
        Thread interrupter = Thread.ofVirtual().start(() -> {
            java.util.concurrent.ThreadLocalRandom rnd = java.util.concurrent.ThreadLocalRandom.current();
            while (System.nanoTime() < end) {
                threads.get(rnd.nextInt(threads.size())).interrupt();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        for (Thread t : threads) {
            t.join();
        }
        interrupter.join();
    }
}
