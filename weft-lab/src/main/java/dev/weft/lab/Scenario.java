package dev.weft.lab;

/**
 * One experiment of the lab: runs its variants and reports each through the context.
 *
 * <p>A scenario is registered by a descriptor, {@code META-INF/weft/scenarios/<name>.properties},
 * which names it, gives its title and source article, and says how to run it:
 * {@code run=java:<class implementing Scenario>} or {@code run=clojure:<ns>/<fn of one argument>}.
 * The runner starts every scenario in a JVM of its own and gives it a {@link ScenarioContext}.
 *
 * <p>A scenario reports, for every variant, the measured figure, the physical limit of this
 * machine for it (Little's law for every sleep-based one: throughput &lt;= concurrency / service
 * time), and the figure the article published; it states its limit in one line with
 * {@link ScenarioContext#limitNote(String)}. Throwing fails the scenario, not the lab.
 *
 * <p>The harness is the lab's, so that a scenario is its table, its measurement and its goals:
 * <ul>
 *   <li>a helper JVM (a server, a load generator, a setting that needs a JVM of its own) is started
 *       with {@link ScenarioContext#startJvm}, the one way, which the lab ends by PID with the scenario,
 *       and talked to in lines ({@link ChildJvm}: commands in, tagged messages out; decision 0805);</li>
 *   <li>a body timed in the scenario's JVM is warmed up by time and measured in batches with
 *       {@link Iterations};</li>
 *   <li>paired rounds loop on {@link ScenarioContext#rounds(int, int)}, which adds rounds while a
 *       goal is inconclusive and the budget allows;</li>
 *   <li>a variant's memory (collector pauses, heap peak, allocated bytes) is measured by wrapping its
 *       runs in {@link ScenarioContext#measuring(String)}.</li>
 * </ul>
 */
@FunctionalInterface
public interface Scenario {

    /** Runs every variant at the sizes {@link ScenarioContext#mode()} asks for. */
    void run(ScenarioContext context) throws Exception;
}
