package dev.weft.lab.scenarios.pinning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What pinning costs the rest of the JVM: while a variant runs, a platform thread starts a short,
 * unrelated virtual-thread task every {@code every} (the task sleeps {@code sleep}) and each task
 * records how long it took from its scheduled start to its end. Unharmed, that is the sleep plus
 * a little; when every carrier is pinned, the tasks cannot even start until one is free.
 *
 * <p>The ticker is a platform thread on purpose: it keeps its schedule whatever the virtual-thread
 * scheduler does, so a frozen scheduler shows as long latencies, not as fewer samples.
 */
final class Bystander implements AutoCloseable {

    /** Latencies of one period, in milliseconds. */
    record Latencies(double[] ms, int started) {

        /** The {@code q}-quantile (0..1), nearest rank, or NaN when no task ran. */
        double quantile(double q) {
            if (ms.length == 0) {
                return Double.NaN;
            }
            double[] sorted = ms.clone();
            Arrays.sort(sorted);
            int rank = (int) Math.ceil(q * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }
    }

    private final Duration every;
    private final Duration sleep;
    private final ConcurrentLinkedQueue<Double> latencies = new ConcurrentLinkedQueue<>();
    private final List<Thread> tasks = new ArrayList<>(); // only the ticker adds, close reads after joining it
    private final Thread ticker;
    private volatile boolean stopping;
    private Latencies result; // set by the first stop

    private Bystander(Duration every, Duration sleep) {
        this.every = every;
        this.sleep = sleep;
        this.ticker =
                Thread.ofPlatform().name("weft-lab-bystander").daemon(true).unstarted(this::tick);
    }

    /** Starts a bystander: a task sleeping {@code sleep} every {@code every}. */
    static Bystander start(Duration every, Duration sleep) {
        Bystander b = new Bystander(every, sleep);
        b.ticker.start();
        return b;
    }

    private void tick() {
        long period = every.toNanos();
        long next = System.nanoTime();
        while (!stopping) {
            long scheduled = next;
            tasks.add(Thread.ofVirtual().name("weft-lab-bystander-task").start(() -> {
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                latencies.add((System.nanoTime() - scheduled) / 1e6);
            }));
            next += period;
            long wait;
            while (!stopping && (wait = next - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    /**
     * Stops starting tasks, waits for those started (they finish once a carrier is free; at most
     * 60 s) and returns their latencies; later calls return the same.
     *
     * @throws IllegalStateException if a task did not finish within 60 s
     */
    Latencies stop() throws InterruptedException { // called by the scenario's thread only
        if (result != null) {
            return result;
        }
        stopping = true;
        ticker.join();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread t : tasks) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                throw new IllegalStateException("a bystander task did not finish within 60 s after its variant ended");
            }
        }
        double[] ms = latencies.stream().mapToDouble(Double::doubleValue).toArray();
        result = new Latencies(ms, tasks.size());
        return result;
    }

    /** Stops the bystander; see {@link #stop()}. */
    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
