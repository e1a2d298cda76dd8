package dev.weft.bench;

import dev.weft.context.Context;
import dev.weft.context.ContextCarrier;
import dev.weft.context.ContextKey;
import dev.weft.otel.WeftOtel;
import dev.weft.slf4j.WeftMdc;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the observability integrations add to a fork: a scope forking {@value #BATCH} trivial
 * tasks with the same five context keys bound, per task, with
 * <ul>
 *   <li>{@code plain}: no integration (a plain weft fork, the baseline);</li>
 *   <li>{@code mdc0}: weft-slf4j mirroring a key that is not bound (installed, nothing to mirror);</li>
 *   <li>{@code mdc1}, {@code mdc5}: 1 or 5 bound keys mirrored into Logback's MDC;</li>
 *   <li>{@code otelIdle}: weft-otel installed, no span current (nothing to carry);</li>
 *   <li>{@code otel}: weft-otel installed, a span current at the fork.</li>
 * </ul>
 * The goal (issue 15): at most 100 ns per fork in use, nothing measurable when absent.
 *
 * <p>{@code scopeFork} is the whole fork (a virtual thread started and joined per task: hundreds
 * of nanoseconds that a busy machine spreads widely); {@code convey} is exactly what conveyance
 * adds to that thread start, without the thread: {@code Context.capture()} where the fork happens
 * and running the task with the snapshot (the integrations' capture, attach and restore), so the
 * integrations' few nanoseconds are not lost in the thread's noise.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 8, time = 1)
@Fork(1)
@State(org.openjdk.jmh.annotations.Scope.Thread)
public class ObservabilityBench {

    static final int BATCH = 1000;

    @Param({"plain", "mdc0", "mdc1", "mdc5", "otelIdle", "otel"})
    public String integration;

    private final List<ContextCarrier.Registration> installed = new ArrayList<>();
    private Context.Snapshot bound;
    private io.opentelemetry.context.Context otel;
    private io.opentelemetry.context.Scope otelCurrent;

    @Setup(Level.Trial)
    public void install() {
        ContextKey<?>[] keys = new ContextKey<?>[5];
        Context.Snapshot s = Context.Snapshot.empty();
        for (int i = 0; i < keys.length; i++) {
            ContextKey<String> k = ContextKey.of("key-" + i);
            keys[i] = k;
            s = s.with(k, "value-" + i);
        }
        bound = s;
        otel = io.opentelemetry.context.Context.root();
        switch (integration) {
            case "plain" -> {}
            case "mdc0" -> installed.add(WeftMdc.mirror(ContextKey.of("not-bound")));
            case "mdc1" -> installed.add(WeftMdc.mirror(keys[0]));
            case "mdc5" -> installed.add(WeftMdc.mirror(keys));
            case "otelIdle" -> installed.add(WeftOtel.install());
            case "otel" -> {
                installed.add(WeftOtel.install());
                otel = Span.wrap(SpanContext.create(
                                "0af7651916cd43dd8448eb211c80319c",
                                "b7ad6b7169203331",
                                TraceFlags.getSampled(),
                                TraceState.getDefault()))
                        .storeInContext(otel);
            }
            default ->
                throw new IllegalArgumentException("unknown integration " + integration + "; one of "
                        + Arrays.toString(new String[] {"plain", "mdc0", "mdc1", "mdc5", "otelIdle", "otel"}));
        }
    }

    /** The span (for otel) is current in the benchmark thread for the whole iteration, not made current per call. */
    @Setup(Level.Iteration)
    public void makeCurrent() {
        otelCurrent = otel.makeCurrent();
    }

    @TearDown(Level.Iteration)
    public void closeCurrent() {
        otelCurrent.close();
    }

    @TearDown(Level.Trial)
    public void uninstall() {
        installed.forEach(ContextCarrier.Registration::close);
        installed.clear();
    }

    /** Per task: fork in a scope with the keys bound (and the span current, for otel), join. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long scopeFork() {
        return bound.call(() -> ForkBench.forkAndJoin(BATCH, n -> n));
    }

    /**
     * Per task: the conveyance a fork adds to its thread: {@code Context.capture()} with the keys
     * bound (and the span current), then the task run with that snapshot where neither is in
     * effect, as in the new thread (weft keys unbound, OpenTelemetry's root context, an empty MDC).
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long convey() {
        Context.Snapshot[] captured = new Context.Snapshot[BATCH];
        bound.call(() -> {
            for (int i = 0; i < BATCH; i++) {
                captured[i] = Context.capture();
            }
            return null;
        });
        long sum = 0;
        try (var root = io.opentelemetry.context.Context.root().makeCurrent()) {
            for (int i = 0; i < BATCH; i++) {
                int n = i;
                sum += captured[i].call(() -> n);
            }
        }
        return sum;
    }
}
