package dev.weft.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.slf4j.MDC;

/**
 * The floor under any MDC propagation, weft's or another's: setting {@code keys} entries for a
 * task and restoring them after it (a read of the previous value, a put, a remove per entry) in
 * Logback's MDC, with no weft involved. {@link ObservabilityBench}'s {@code mdc1}/{@code mdc5}
 * minus {@code plain} is weft-slf4j's cost; this is how much of it the MDC itself takes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(org.openjdk.jmh.annotations.Scope.Thread)
public class MdcBench {

    @Param({"1", "5"})
    public int keys;

    private String[] names;
    private String[] values;

    @Setup
    public void names() {
        names = new String[keys];
        values = new String[keys];
        for (int i = 0; i < keys; i++) {
            names[i] = "key-" + i;
            values[i] = "value-" + i;
        }
    }

    /** Per task: n entries set and restored, as a mirror does around a task on a fresh thread. */
    @Benchmark
    public int setAndRestore() {
        int seen = 0;
        for (int i = 0; i < keys; i++) {
            seen += MDC.get(names[i]) == null ? 0 : 1;
            MDC.put(names[i], values[i]);
        }
        for (int i = 0; i < keys; i++) {
            MDC.remove(names[i]);
        }
        return seen;
    }
}
