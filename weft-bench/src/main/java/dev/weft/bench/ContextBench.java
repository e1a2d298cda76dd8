package dev.weft.bench;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of context, per operation, with {@code keys} keys: capturing the keys bound now,
 * re-binding a captured snapshot where a task runs (what every conveyance does), binding the keys
 * for a body, and reading one. Capture and re-bind should not grow with the number of keys; bind
 * does (it copies the bindings in effect).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class ContextBench {

    /** How many context keys are bound. */
    @Param({"1", "4", "16"})
    public int keys;

    private ContextKey<Integer>[] all;
    private Context.Snapshot snapshot;
    private Context.Bindings bindings;

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void bind() {
        all = new ContextKey[keys];
        Context.Snapshot s = Context.Snapshot.empty();
        for (int i = 0; i < keys; i++) {
            all[i] = ContextKey.of("k" + i);
            s = s.with(all[i], i);
            bindings = bindings == null ? Context.where(all[i], i) : bindings.where(all[i], i);
        }
        snapshot = s;
    }

    /** Capturing the keys bound now (inside a body that binds them). */
    @Benchmark
    public Context.Snapshot capture() {
        return snapshot.call(Context::capture);
    }

    /** The floor of {@link #capture()}: running a body with the snapshot and returning it. */
    @Benchmark
    public Context.Snapshot captureBaseline() {
        Context.Snapshot s = snapshot;
        return s.call(() -> s);
    }

    /** Re-binding a captured snapshot for a task, as every conveyance does, and reading one key. */
    @Benchmark
    public Integer rebindAndRead() {
        ContextKey<Integer> k = all[0];
        return snapshot.call(k::get);
    }

    /** Binding {@code keys} keys for a body with {@code Context.where(...)...call}, and reading one. */
    @Benchmark
    public Integer bindAndRead() {
        ContextKey<Integer> k = all[0];
        return bindings.call(k::get);
    }

    /** Reading the key bound first, {@code keys - 1} keys later (the look-up scans the bindings). */
    @Benchmark
    public Integer readWithinBody() {
        ContextKey<Integer> k = all[0];
        return snapshot.call(() -> {
                    int sum = 0;
                    for (int i = 0; i < 16; i++) {
                        sum += k.get();
                    }
                    return sum;
                })
                / 16;
    }
}
