package dev.weft.lab.scenarios.pinning;

import dev.weft.lab.ChildJvm;
import dev.weft.lab.Goal;
import dev.weft.lab.ScenarioContext;
import dev.weft.lab.Stats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The weft agent's overhead on {@code no-lock}, which never pins: child JVMs run the workload
 * without and with {@code -javaagent:weft-agent.jar} (both detectors, its defaults). Two JVMs, one
 * without and one with, start and warm up together ({@link ChildJvm}), tell {@code ready}, then
 * each runs a block of operations on the command {@code block N} and sends one message per
 * operation, {@code op tasks_per_s=X}. A pair is a block in each, back to back, in an order that
 * alternates (off-on, on-off, ...) so that drift cancels out; its ratio is the block with the
 * agent's throughput over the block without's (each its operations over their summed time). Two
 * JVMs run {@value #PAIRS_PER_JVMS} pairs, then two new ones take over. The goal is judged on the
 * pairs' ratios: at least 30 in quick mode as long as they fit in the scenario's time left,
 * more while the goal is inconclusive and the budget allows (decisions 0809, 0830, 0856); a block is 4 operations, ~50 ms (decision 0845: many short
 * pairs narrow the median's interval more than a few long ones from the same operations). A JVM per block, as before 0830, put a JVM start, a warm-up and
 * a second of the machine's drift between a pair's two blocks.
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
     * Runs the pairs: smoke 1 pair of blocks of 2 operations; quick 30-120 pairs of blocks of 4
     * operations, full 64-192 pairs of blocks of 10 ({@link Plan}, decision 0845). A pair is one block in a JVM
     * without the agent and one in a JVM with it, run back to back in an order that alternates
     * (off-on, on-off, ...); the two JVMs live for {@link #PAIRS_PER_JVMS} pairs, then a new two
     * take over, so that what one JVM differs from another is spread over several JVMs.
     */
    static Result measure(ScenarioContext ctx, int threads, Path agent) throws Exception {
        Plan plan = Plan.of(ctx);
        int ops = plan.ops();
        long start = System.nanoTime();
        List<Double> off = new ArrayList<>();
        List<Double> on = new ArrayList<>();
        List<Double> pairRatios = new ArrayList<>();
        ChildJvm[] jvms = null; // without, with
        Duration longestPair = plan.pairEstimate();
        Duration longestTwo = plan.twoEstimate();
        try {
            // Each pair only if it fits in the time left (decision 0856): the fewest pairs are
            // what the scenario keeps time for, not a count that overruns its budget when the
            // machine is slower than planned.
            while (plan.another(
                    pairRatios.size(),
                    Goal.undecided(pairRatios, TARGET, Goal.AT_LEAST),
                    timeLeft(ctx),
                    longestPair,
                    longestTwo)) {
                int pair = pairRatios.size();
                if (pair >= plan.minPairs()) {
                    ctx.progress(String.format(
                            Locale.ROOT,
                            "agent pair %d: the goal is still inconclusive; one more pair (at most %d)",
                            pair + 1,
                            plan.maxPairs()));
                }
                long pairStart = System.nanoTime();
                if (pair % PAIRS_PER_JVMS == 0) {
                    stop(jvms);
                    jvms = null;
                    jvms = start(ctx, pair / PAIRS_PER_JVMS, threads, plan.warmupMs(), agent);
                    // One unmeasured block in each, one after the other: on JDK 25 the first block
                    // after the JVMs' joint warm-up ran 10-17% slow (the other JVM still compiling),
                    // a 0.83x or 1.13x first pair in every new two (decision 0830).
                    for (ChildJvm jvm : jvms) {
                        block(jvm, plan.settleOps());
                    }
                    longestTwo = longer(longestTwo, Duration.ofNanos(System.nanoTime() - pairStart));
                    pairStart = System.nanoTime();
                }
                double[] figures = new double[2]; // without, with
                for (int i = 0; i < 2; i++) {
                    int withAgent = (pair + i) % 2; // off-on, then on-off, ...
                    List<Double> found = block(jvms[withAgent], ops);
                    (withAgent == 1 ? on : off).addAll(found);
                    figures[withAgent] = PinningScenario.throughput(found);
                }
                pairRatios.add(figures[1] / figures[0]);
                longestPair = longer(longestPair, Duration.ofNanos(System.nanoTime() - pairStart));
            }
        } finally {
            stop(jvms);
        }
        return new Result(
                off.stream().mapToDouble(Double::doubleValue).toArray(),
                on.stream().mapToDouble(Double::doubleValue).toArray(),
                List.copyOf(pairRatios),
                (System.nanoTime() - start) / 1e9);
    }

    /** The time left before the scenario's budget ends (negative once it has), or empty without a budget. */
    private static Optional<Duration> timeLeft(ScenarioContext ctx) {
        return Optional.ofNullable(ctx.deadline()).map(end -> Duration.between(Instant.now(), end));
    }

    /** The goal's target: with/without at least 0.98, the agent costs at most 2%. */
    static final double TARGET = 0.98;

    /**
     * How many pairs of blocks two JVMs run before a new two replace them: a start, warm-up and
     * unmeasured block (~1.9 s for the two) per 10 pairs (~1 s), so that the fewest pairs of a
     * quick run come from 3 twos of JVMs (decisions 0830, 0845).
     */
    static final int PAIRS_PER_JVMS = 10;

    private static Duration longer(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * The sizes of a run (decision 0845) and how its pairs fit in the scenario's time (decision
     * 0856).
     *
     * @param ops          operations per measured block: 4 in quick mode (~50 ms, two of the
     *                     canary's 20 ms periods and more), so that a slow operation makes one stray
     *                     pair, which the median passes over, rather than a slower block in every pair
     * @param settleOps    operations of the unmeasured block each new JVM runs first (decision 0830)
     * @param minPairs     the fewest pairs, time permitting
     * @param maxPairs     the most pairs, while the goal is inconclusive and the budget allows
     * @param warmupMs     how long each new two of JVMs warms up, together, by time: the JIT's
     *                     compilations and the carriers' start make a young JVM's operations vary
     *                     twice as much as a warm one's (decision 0810)
     */
    record Plan(int ops, int settleOps, int minPairs, int maxPairs, int warmupMs) {

        /**
         * The plan of the context's mode: smoke 1 pair of 2 operations a block; quick 30-120 pairs
         * of 4 after 0.7 s of warm-up; full 64-192 of 10 after 2 s.
         */
        static Plan of(ScenarioContext ctx) {
            return new Plan(
                    ctx.size(2, 4, 10),
                    ctx.size(2, 16, 40),
                    ctx.size(1, 30, 64),
                    ctx.size(1, 120, 192),
                    ctx.size(0, 700, 2_000));
        }

        /** Kept after the last pair: the last two JVMs stop and the scenario writes its result. */
        static final Duration RESERVE = Duration.ofMillis(500);

        /**
         * An operation's time, for the estimates before this run measured one: 1,000 tasks at
         * 70,000-90,000 tasks/s on an idle machine (JDK 21 and 25) take 11-14 ms; 15 ms leaves room.
         */
        static final Duration OPERATION_ESTIMATE = Duration.ofMillis(15);

        /** Two JVMs starting at once, up to their warm-up: 0.4-0.8 s on an idle machine, 1 s assumed. */
        static final Duration START_ESTIMATE = Duration.ofSeconds(1);

        /** A pair's time before one was measured: a block in each JVM. */
        Duration pairEstimate() {
            return OPERATION_ESTIMATE.multipliedBy(2L * ops);
        }

        /** A new two's time before one was measured: their start, their joint warm-up, an unmeasured block in each. */
        Duration twoEstimate() {
            return START_ESTIMATE.plusMillis(warmupMs).plus(OPERATION_ESTIMATE.multipliedBy(2L * settleOps));
        }

        /**
         * How long the fewest pairs take at the estimates: the time the scenario keeps for them
         * while it runs what comes before ({@link PinningScenario}'s monitor pairs).
         */
        Duration minimumTime() {
            long twos = (minPairs + PAIRS_PER_JVMS - 1) / PAIRS_PER_JVMS;
            return pairEstimate()
                    .multipliedBy(minPairs)
                    .plus(twoEstimate().multipliedBy(twos))
                    .plus(RESERVE);
        }

        /**
         * Whether to run the pair after {@code done}: up to {@link #minPairs}, and past it while
         * the goal is {@code inconclusive} and the scenario has a budget, up to {@link #maxPairs};
         * either way only when it fits in {@code left}, the scenario's time left (empty: no
         * budget): the pair's time ({@code pair}, the longest so far or the estimate), a new two's
         * ({@code two}) when it starts one, and {@link #RESERVE}. The first pair always runs, so
         * that the goal has a figure (a scenario that reaches it with no time left was late before).
         */
        boolean another(int done, boolean inconclusive, Optional<Duration> left, Duration pair, Duration two) {
            if (done >= maxPairs || (done >= minPairs && (!inconclusive || left.isEmpty()))) {
                return false;
            }
            if (done == 0 || left.isEmpty()) {
                return true;
            }
            Duration need = pair.plus(RESERVE);
            if (done % PAIRS_PER_JVMS == 0) {
                need = need.plus(two);
            }
            return need.compareTo(left.get()) <= 0;
        }
    }

    /** The tag of the message a child sends when it has warmed up and waits for blocks. */
    static final String READY = "ready";

    /** The command that runs one block: {@code block N}, N operations. */
    static final String BLOCK = "block";

    /** Starts a JVM without and one with the agent, both warming up at once; returns when both are ready. */
    private static ChildJvm[] start(ScenarioContext ctx, int generation, int threads, int warmupMs, Path agent)
            throws Exception {
        ChildJvm[] jvms = new ChildJvm[2];
        try {
            for (int withAgent = 0; withAgent < 2; withAgent++) {
                jvms[withAgent] = ctx.startJvm(
                        "agent-overhead-" + generation + (withAgent == 1 ? "-on" : "-off"),
                        withAgent == 1 ? List.of("-javaagent:" + agent) : List.of(),
                        AgentOverhead.class.getName(),
                        List.of(Integer.toString(threads), Integer.toString(warmupMs)));
            }
            for (ChildJvm jvm : jvms) {
                jvm.await(READY, Duration.ofSeconds(60));
            }
            return jvms;
        } catch (Exception | Error e) {
            stop(jvms);
            throw e;
        }
    }

    /** Runs one block of {@code ops} operations in {@code jvm}; returns each operation's throughput. */
    private static List<Double> block(ChildJvm jvm, int ops) throws Exception {
        jvm.send(BLOCK + " " + ops);
        List<Double> found = new ArrayList<>(ops);
        for (int op = 0; op < ops; op++) {
            String figure = jvm.await(RESULT, Duration.ofSeconds(60)); // blocks while the child measures
            found.add(Double.parseDouble(figure.substring("tasks_per_s=".length())));
        }
        return found;
    }

    private static void stop(ChildJvm[] jvms) {
        if (jvms != null) {
            for (ChildJvm jvm : jvms) {
                if (jvm != null) {
                    jvm.stop();
                }
            }
        }
    }

    /**
     * The child: {@code threads warmupMs}; runs no-lock operations for {@code warmupMs}, tells
     * {@code ready}, then for each command {@code block N} runs N measured operations and tells
     * one line each, after the block (formatting and writing between operations would fall on
     * them); it ends when the parent ends its input.
     */
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long warmupEnd =
                System.nanoTime() + Duration.ofMillis(Long.parseLong(args[1])).toNanos();
        do {
            PinningScenario.operation(PinningScenario.Kind.NO_LOCK, threads, null);
        } while (System.nanoTime() - warmupEnd < 0);
        ChildJvm.tell(READY, "");
        for (String command : ChildJvm.commands()) {
            if (!command.startsWith(BLOCK + " ")) {
                throw new IllegalArgumentException("expected \"" + BLOCK + " <operations>\", got \"" + command + "\"");
            }
            long[] nanos = new long
                    [Integer.parseInt(command.substring(BLOCK.length() + 1).trim())];
            for (int i = 0; i < nanos.length; i++) {
                long t0 = System.nanoTime();
                PinningScenario.operation(PinningScenario.Kind.NO_LOCK, threads, null);
                nanos[i] = System.nanoTime() - t0;
            }
            for (long n : nanos) {
                ChildJvm.tell(RESULT, String.format(Locale.ROOT, "tasks_per_s=%.3f", threads / (n / 1e9)));
            }
        }
    }
}
