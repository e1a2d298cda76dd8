package dev.weft.agent;

import java.lang.instrument.Instrumentation;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The weft agent: {@code java -javaagent:weft-agent-<version>.jar[=options] -jar app.jar} runs
 * weft's pin monitor and starvation detector in any JVM (21+) without a code change, logs a
 * summary by site every interval through {@code System.Logger} (logger {@code dev.weft.agent}; it
 * reaches SLF4J or Logback when the application has the bridge), and registers
 * {@link WeftAgentMXBean} as {@code dev.weft:type=Agent}.
 *
 * <p>Options, comma-separated: {@code interval=1m}, {@code threshold=20ms},
 * {@code detectors=pins+starvation} (or {@code pins}, or {@code starvation}). A bad option stops
 * the JVM at start with a message naming it: a production agent that silently does nothing would
 * be worse. The agent jar is self-contained; the weft classes inside are relocated to
 * {@code dev.weft.agent.internal.weft}, so they never meet the application's own weft modules.
 */
public final class WeftAgent {

    /** A lock, not synchronized: starting waits for JFR, and weft's own audit flags blocking under a monitor. */
    private static final ReentrantLock STARTING = new ReentrantLock();

    private static AgentRun run; // guarded by STARTING

    private WeftAgent() {}

    /**
     * Called by the JVM before {@code main} for {@code -javaagent}.
     *
     * @param options    the text after {@code =}, or null
     * @param instrument not used: the agent transforms no class
     * @throws IllegalArgumentException for a bad option, naming it and the forms accepted
     */
    public static void premain(String options, Instrumentation instrument) {
        start(options);
    }

    /**
     * Called by the JVM when the agent is loaded into a running JVM (the attach API's
     * {@code loadAgent}); the same as {@link #premain}.
     *
     * @param options    the text after {@code =}, or null
     * @param instrument not used
     */
    public static void agentmain(String options, Instrumentation instrument) {
        start(options);
    }

    /** Starts the detectors once per JVM; a second load of the agent says so and changes nothing. */
    static void start(String options) {
        AgentOptions parsed = AgentOptions.parse(options);
        STARTING.lock();
        try {
            if (run != null) {
                System.getLogger(AgentRun.LOGGER)
                        .log(
                                System.Logger.Level.WARNING,
                                "weft agent: already running (" + run.options().detectorNames() + "); options "
                                        + options + " ignored");
                return;
            }
            run = AgentRun.start(parsed);
        } finally {
            STARTING.unlock();
        }
    }
}
