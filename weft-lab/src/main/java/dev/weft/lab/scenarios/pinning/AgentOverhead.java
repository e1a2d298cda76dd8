package dev.weft.lab.scenarios.pinning;

import dev.weft.lab.ChildJvm;
import dev.weft.lab.Goal;
import dev.weft.lab.Rounds;
import dev.weft.lab.ScenarioContext;
import dev.weft.lab.Stats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The weft agent's overhead on {@code no-lock}, which never pins: child JVMs run the workload
 * without and with {@code -javaagent:weft-agent.jar} (both detectors, its defaults), in pairs
 * whose order alternates so that drift cancels out. Each child ({@link ChildJvm}) warms up by time,
 * then sends one message per operation, {@code op tasks_per_s=X}. Each pair gives one paired
 * ratio, the throughput of the JVM with the agent over that of the JVM without (each its
 * operations over their summed time); the goal is judged on those ratios
 * (at least 6 pairs in quick mode, the sign test's 95%, and more while the goal is inconclusive
 * and the budget allows: decision 0809), since one pair's ratio moves by several percent from
 * JVM to JVM.
 */
public final class AgentOverhead {

    /** The tag of the message each measured operation sends. */
    static final String RESULT = "op";

    /**
     * Throughputs of every measured operation, without and with the agent, each pair's ratio
     * (with / without, each JVM's {@link PinningScenario#throughput}), and the time it all took.
     */
    record Result(double[] off, double[] on, List<Double> pairRatios, double seconds) {
        /** Median throughput with the agent divided by the median without it. */
        double ratio() {
            return Stats.median(on) / Stats.median(off);
        }
    }

    private AgentOverhead() {}

    /** The agent jar on this classpath (the shaded one weft-agent installs), or empty when it is not a jar here. */
    static Optional<Path> agentJar() {
        try {
            Path p = Path.of(dev.weft.agent.WeftAgent.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            return Files.isRegularFile(p) && p.toString().endsWith(".jar") ? Optional.of(p) : Optional.empty();
        } catch (Exception | LinkageError e) {
            return Optional.empty();
        }
    }

    /**
     * Runs the pairs: smoke 1 pair of 2 operations; quick 6-10 pairs of child JVMs that warm up for
     * 0.5 s and measure 16 operations (~2 s a pair); full 8-16 pairs of 2 s of warm-up and 40.
     */
    static Result measure(ScenarioContext ctx, int threads, Path agent) throws Exception {
        int ops = ctx.size(2, 16, 40);
        // By time: the JIT's compilations and the carriers' start make a young JVM's operations
        // vary twice as much as a warm one's (decision 0810).
        int warmupMs = ctx.size(0, 500, 2_000);
        long start = System.nanoTime();
        List<Double> off = new ArrayList<>();
        List<Double> on = new ArrayList<>();
        List<Double> pairRatios = new ArrayList<>();
        Rounds pairs = ctx.rounds(ctx.size(1, 6, 8), ctx.size(1, 10, 16))
                .reserve(Duration.ofSeconds(1))
                .watch(Goal.AT_LEAST, 0.98, () -> List.copyOf(pairRatios));
        while (pairs.another()) {
            int pair = pairs.count() - 1;
            double[] figures = new double[2]; // without, with
            for (int i = 0; i < 2; i++) {
                boolean withAgent = (pair + i) % 2 == 1; // off-on, then on-off, ...
                List<String> jvmArgs = withAgent ? List.of("-javaagent:" + agent) : List.of();
                String label = "agent-overhead-" + pair + (withAgent ? "-on" : "-off");
                ChildJvm child = ctx.startJvm(
                        label,
                        jvmArgs,
                        AgentOverhead.class.getName(),
                        List.of(Integer.toString(threads), Integer.toString(ops), Integer.toString(warmupMs)));
                List<Double> found = new ArrayList<>();
                try {
                    int exit = child.awaitExit(Duration.ofSeconds(120)); // blocks while the child measures
                    for (int op = 0; op < ops; op++) {
                        String figure = child.await(RESULT, Duration.ZERO);
                        found.add(Double.parseDouble(figure.substring("tasks_per_s=".length())));
                    }
                    if (exit != 0) {
                        throw new IllegalStateException(
                                label + " exited with " + exit + " after its " + ops + " results; " + child.tail());
                    }
                } finally {
                    child.stop();
                }
                (withAgent ? on : off).addAll(found);
                figures[withAgent ? 1 : 0] = PinningScenario.throughput(found);
            }
            pairRatios.add(figures[1] / figures[0]);
        }
        return new Result(
                off.stream().mapToDouble(Double::doubleValue).toArray(),
                on.stream().mapToDouble(Double::doubleValue).toArray(),
                List.copyOf(pairRatios),
                (System.nanoTime() - start) / 1e9);
    }

    /**
     * The child: {@code threads ops warmupMs}; runs no-lock operations for {@code warmupMs}, then
     * {@code ops} measured ones, one line each.
     */
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int ops = Integer.parseInt(args[1]);
        long warmupEnd =
                System.nanoTime() + Duration.ofMillis(Long.parseLong(args[2])).toNanos();
        do {
            PinningScenario.operation(PinningScenario.Kind.NO_LOCK, threads, null);
        } while (System.nanoTime() - warmupEnd < 0);
        for (int i = 0; i < ops; i++) {
            long t0 = System.nanoTime();
            PinningScenario.operation(PinningScenario.Kind.NO_LOCK, threads, null);
            ChildJvm.tell(
                    RESULT, String.format(Locale.ROOT, "tasks_per_s=%.3f", threads / ((System.nanoTime() - t0) / 1e9)));
        }
    }
}
