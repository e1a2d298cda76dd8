package dev.weft.bench;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import dev.weft.scope.Scope;
import dev.weft.scope.Subtask;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one fork: a scope forking {@value #BATCH} trivial tasks and joining them, per task,
 * with 0 to 16 context keys bound at the fork (all conveyed), against starting and joining as many
 * plain virtual threads that convey nothing. The difference is what a scope and its context
 * conveyance add to a virtual thread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
public class ForkBench {

    static final int BATCH = 1000;

    /** How many context keys are bound where the tasks are forked. */
    @Param({"0", "1", "4", "16"})
    public int keys;

    private Context.Snapshot bound;
    private ContextKey<Integer> first;

    @Setup(Level.Trial)
    public void bind() {
        Context.Snapshot s = Context.Snapshot.empty();
        for (int i = 0; i < keys; i++) {
            ContextKey<Integer> k = ContextKey.of("k" + i);
            if (i == 0) {
                first = k;
            }
            s = s.with(k, i);
        }
        bound = s;
    }

    /** Per task: fork in a scope with {@code keys} keys bound, join. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long scopeFork() {
        return forkAndJoin(null);
    }

    /** Per task: as {@link #scopeFork()}, and each task reads one conveyed key (none when keys = 0). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long scopeForkReadingAKey() {
        return forkAndJoin(first);
    }

    /** Forks {@value #BATCH} tasks with the keys bound, each reading {@code read} if not null; joins; sums. */
    private long forkAndJoin(ContextKey<Integer> read) {
        return bound.call(() -> forkAndJoin(BATCH, n -> read == null ? n : n + read.get()));
    }

    /**
     * Opens a scope in the current thread, forks {@code batch} tasks, task {@code n} computing
     * {@code task(n)}, joins them and sums their results: the fork loop every fork benchmark shares.
     */
    static long forkAndJoin(int batch, IntUnaryOperator task) {
        long sum = 0;
        try (Scope scope = Scope.open()) {
            Subtask<?>[] tasks = new Subtask<?>[batch];
            for (int i = 0; i < batch; i++) {
                int n = i;
                tasks[i] = scope.fork(() -> task.applyAsInt(n));
            }
            scope.join();
            for (Subtask<?> t : tasks) {
                sum += (Integer) t.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return sum;
    }

    /** Per task: the floor, a plain virtual thread started and joined, conveying nothing. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long plainVirtualThread() throws InterruptedException {
        Thread[] threads = new Thread[BATCH];
        long[] results = new long[BATCH];
        for (int i = 0; i < BATCH; i++) {
            int n = i;
            threads[i] = Thread.ofVirtual().start(() -> results[n] = n);
        }
        long sum = 0;
        for (int i = 0; i < BATCH; i++) {
            threads[i].join();
            sum += results[i];
        }
        return sum;
    }
}
