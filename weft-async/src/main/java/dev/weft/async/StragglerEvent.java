package dev.weft.async;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A task that core.async ran on weft's executor factory ({@code weft.async/executor-factory}) has
 * been parked in a channel operation longer than the straggler threshold: most likely a
 * {@code thread}, {@code io-thread} or pipeline worker waiting on a channel that nobody will use
 * again. Committed once per task, when weft first finds it (by {@code weft.async/stragglers} or
 * the periodic straggler report), with the waiting thread's name and the stack of the operation
 * it waits in ({@code stack}; the event's own stack trace is the finder's, so it is off).
 *
 * <p>On by default, unlike weft's other events: it is rare (a leak) and is what a recording of a
 * leaking service should show. A recording can turn it off with
 * {@code jfr configure +dev.weft.AsyncStraggler#enabled=false}.
 */
@Name(StragglerEvent.NAME)
@Label("core.async Straggler")
@Category("weft")
@Description("A core.async task on weft's executors parked in a channel operation longer than the threshold")
@StackTrace(false)
public final class StragglerEvent extends jdk.jfr.Event {

    /** The event's name in recordings. */
    public static final String NAME = "dev.weft.AsyncStraggler";

    @Label("Thread")
    @Description("The name of the thread that waits, e.g. async-mixed-12")
    String thread;

    @Label("Workload")
    @Description("core.async's workload: io, mixed, compute or core-async-dispatch")
    String workload;

    @Label("Operation")
    @Description("The channel operation it waits in: take, put or alts")
    String operation;

    @Label("Age")
    @Description("How long the task has run")
    @Timespan(Timespan.MILLISECONDS)
    long age;

    @Label("At")
    @Description("The first frame of the code that waits (outside the JDK, Clojure, core.async and weft)")
    String at;

    @Label("Stack")
    @Description("The waiting thread's stack, one frame a line, innermost first")
    String stack;

    StragglerEvent() {}

    /**
     * Commits a straggler when a recording has {@value #NAME} enabled.
     *
     * @param thread    the waiting thread's name
     * @param workload  core.async's workload name
     * @param operation take, put or alts
     * @param ageMillis how long the task has run, in milliseconds
     * @param at        the first frame of the code that waits, or null
     * @param stack     the waiting thread's stack, one frame a line
     */
    public static void emit(String thread, String workload, String operation, long ageMillis, String at, String stack) {
        StragglerEvent e = new StragglerEvent();
        if (e.shouldCommit()) {
            e.thread = thread;
            e.workload = workload;
            e.operation = operation;
            e.age = ageMillis;
            e.at = at;
            e.stack = stack;
            e.commit();
        }
    }
}
