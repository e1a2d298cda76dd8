package dev.weft.lab.scenarios.pinning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.lab.ChildJvm;
import dev.weft.lab.Confidence;
import dev.weft.lab.Mode;
import dev.weft.lab.ScenarioContext;
import dev.weft.pin.PinMonitor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The overhead pairs' two mechanisms of decision 0830: operations while the monitor stops, and long-lived agent JVMs. */
class OverheadPairsTest {

    @Test
    void operationsRunWithTheMonitorUntilItsStopReturnsAndTheOneUnderWayThenIsLeftOut() throws Exception {
        PinMonitor monitor = new PinningScenario.PinLog().startMonitor();
        AtomicInteger ran = new AtomicInteger();
        List<Double> figures = PinningScenario.whileStopping(monitor, () -> {
            ran.incrementAndGet();
            Thread.sleep(5);
            return 10;
        });
        assertTrue(monitor.isStopped(), "the monitor is stopped when it returns");
        // the stop waits for JFR's next flush (up to about a second): several 5 ms operations fit
        assertFalse(figures.isEmpty(), "at least one operation ended before the stop returned");
        assertEquals(ran.get() - 1, figures.size(), "every operation but the last one counts");
        // 10 tasks in at least 5 ms each: at most 2,000 tasks/s, whatever the machine's load
        figures.forEach(f -> assertTrue(f > 0 && f <= 2_000, figures.toString()));
        assertTrue(
                Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().equals("weft-lab-monitor-stop")),
                "the thread that stopped the monitor has ended");
    }

    @Test
    void anAgentJvmWarmsUpThenRunsABlockPerCommandAndRefusesAnythingElse(@TempDir Path dir) throws Exception {
        ChildJvm child = readyChild(dir, "agent-overhead-test");
        try {
            for (int ops : new int[] {3, 1}) {
                child.send(AgentOverhead.BLOCK + " " + ops);
                for (int i = 0; i < ops; i++) {
                    String figure = child.await(AgentOverhead.RESULT, Duration.ofSeconds(60));
                    // 20 tasks that sleep 10 ms each: at most 2,000 tasks/s
                    double tasksPerSecond = Double.parseDouble(figure.substring("tasks_per_s=".length()));
                    assertTrue(tasksPerSecond > 0 && tasksPerSecond <= 2_000, figure);
                }
            }
            child.send("run 3");
            int exit = child.awaitExit(Duration.ofSeconds(60));
            assertNotEquals(0, exit, "a command other than block N ends the child with an error");
            assertTrue(child.tail().contains("expected \"block <operations>\", got \"run 3\""), child.tail());
        } finally {
            child.stop();
        }
    }

    @Test
    void agentBlocksHoldTwoCanaryPeriodsAndTheFewestPairsDecideAtNinetyFivePercentFromThreeTwosOfJvms(
            @TempDir Path dir) {
        for (Mode mode : List.of(Mode.QUICK, Mode.FULL)) {
            AgentOverhead.Plan plan = AgentOverhead.Plan.of(new ScenarioContext(
                    mode, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), dir));
            // The agent's canary wakes every 20 ms (its default threshold); an operation sleeps 10 ms
            // and takes ~12 ms: a shorter block would sample the canary's phase (decision 0845).
            assertTrue(plan.ops() * PinningScenario.IO_MILLIS >= 2 * 20, mode + ": " + plan);
            assertTrue(plan.minPairs() > 2 * AgentOverhead.PAIRS_PER_JVMS, mode + ": at least 3 twos of JVMs, " + plan);
            assertTrue(plan.maxPairs() > plan.minPairs(), mode + ": room for more pairs, " + plan);
            List<Double> fewest = java.util.Collections.nCopies(plan.minPairs(), 1.0);
            assertTrue(Confidence.median(fewest).level() >= Confidence.LEVEL, mode + ": " + plan);
            // The unmeasured block a new two runs first stays as long as decision 0830's.
            assertTrue(plan.settleOps() >= 16, mode + ": " + plan);
        }
    }

    @Test
    void theAgentsPairsRunOnlyWhileTheyFitInTheTimeLeftTheFirstAlways(@TempDir Path dir) {
        AgentOverhead.Plan plan = AgentOverhead.Plan.of(quick(dir));
        Duration pair = Duration.ofMillis(120);
        Duration two = Duration.ofSeconds(2);
        Duration reserve = AgentOverhead.Plan.RESERVE;
        // the first pair has no time left, yet runs: the goal needs a figure
        assertTrue(plan.another(0, true, Optional.of(Duration.ofSeconds(-5)), pair, two));
        // below the fewest pairs, but the next one does not fit
        assertFalse(plan.another(15, true, Optional.of(pair.plus(reserve).minusMillis(1)), pair, two));
        assertTrue(plan.another(15, true, Optional.of(pair.plus(reserve)), pair, two));
        // a pair that starts a new two of JVMs needs the two's time as well
        assertFalse(plan.another(20, true, Optional.of(pair.plus(reserve).plusMillis(1_000)), pair, two));
        assertTrue(plan.another(20, true, Optional.of(pair.plus(reserve).plus(two)), pair, two));
        // past the fewest: only while inconclusive, with a budget, below the most
        Optional<Duration> plenty = Optional.of(Duration.ofSeconds(60));
        assertTrue(plan.another(plan.minPairs(), true, plenty, pair, two));
        assertFalse(plan.another(plan.minPairs(), false, plenty, pair, two));
        assertFalse(plan.another(plan.maxPairs(), true, plenty, pair, two));
        // no budget (tests, smoke): the fewest pairs, no more
        assertTrue(plan.another(plan.minPairs() - 1, true, Optional.empty(), pair, two));
        assertFalse(plan.another(plan.minPairs(), true, Optional.empty(), pair, two));
    }

    @Test
    void whateverTheTimeLeftThePairsEndBeforeTheDeadlineAndTheMinimumTimeHoldsTheFewest(@TempDir Path dir) {
        AgentOverhead.Plan plan = AgentOverhead.Plan.of(quick(dir));
        Duration pair = plan.pairEstimate();
        Duration two = plan.twoEstimate();
        for (long budgetMs = 0; budgetMs <= 40_000; budgetMs += 50) {
            Duration budget = Duration.ofMillis(budgetMs);
            Duration used = Duration.ZERO;
            int done = 0;
            while (plan.another(done, true, Optional.of(budget.minus(used)), pair, two)) {
                used = used.plus(pair).plus(done % AgentOverhead.PAIRS_PER_JVMS == 0 ? two : Duration.ZERO);
                done++;
            }
            if (done > 1) {
                assertTrue(
                        used.plus(AgentOverhead.Plan.RESERVE).compareTo(budget) <= 0,
                        budget + ": " + done + " pairs took " + used);
            } else {
                assertEquals(1, done, budget + ": the first pair always runs");
            }
            if (budget.compareTo(plan.minimumTime()) >= 0) {
                assertTrue(done >= plan.minPairs(), budget + " holds the fewest pairs, ran " + done);
            }
        }
    }

    private static ScenarioContext quick(Path dir) {
        return new ScenarioContext(
                Mode.QUICK, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), dir);
    }

    @Test
    void anAgentJvmEndsWhenItsParentEndsItsCommands(@TempDir Path dir) throws Exception {
        ChildJvm child = readyChild(dir, "agent-overhead-end");
        try {
            child.endInput();
            assertEquals(0, child.awaitExit(Duration.ofSeconds(60)));
        } finally {
            child.stop();
        }
    }

    /** A child JVM without the agent, 20 threads an operation, no warm-up, once it said it is ready. */
    private static ChildJvm readyChild(Path dir, String label) throws Exception {
        ScenarioContext ctx = new ScenarioContext(
                Mode.SMOKE, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), dir);
        ChildJvm child = ctx.startJvm(label, List.of(), AgentOverhead.class.getName(), List.of("20", "0"));
        try {
            child.await(AgentOverhead.READY, Duration.ofSeconds(60));
            return child;
        } catch (Exception | Error e) {
            child.stop();
            throw e;
        }
    }
}
