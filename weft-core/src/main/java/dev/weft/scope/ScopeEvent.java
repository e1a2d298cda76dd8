package dev.weft.scope;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A weft {@link Scope} from open to close: a duration event committed when the scope closes, in
 * the owner thread, with its name, joiner, forks and outcome. Off unless a recording enables
 * {@value #NAME}: {@code recording.enable(ScopeEvent.NAME)}, or
 * {@code jfr configure +dev.weft.Scope#enabled=true}; off, a scope pays one check. The event's
 * name and fields are what recordings and tools read; the class is public for its name only.
 */
@Name(ScopeEvent.NAME)
@Label("Scope")
@Category("weft")
@Description("A weft structured scope from open to close: its policy, forks and outcome")
@Enabled(false)
@StackTrace(false)
public final class ScopeEvent extends Event {

    /** The event's name in recordings. */
    public static final String NAME = "dev.weft.Scope";

    @Label("Name")
    @Description("The scope's name (its threads are weft-<name>-<n>)")
    String name;

    @Label("Policy")
    @Description("The policy that decides the outcome")
    String policy;

    @Label("Forks")
    @Description("Subtasks forked in the scope")
    long forks;

    @Label("Outcome")
    @Description(
            "succeeded, timed out, failed: <exception class> (the last join's), cancelled, not joined or closed without a join")
    String outcome;

    ScopeEvent() {}

    /**
     * An event begun now when a recording has {@value #NAME} enabled, else null: a scope nobody
     * records costs this one check (the unused event does not escape and is not allocated).
     */
    static ScopeEvent opened() {
        ScopeEvent e = new ScopeEvent();
        if (!e.isEnabled()) {
            return null;
        }
        e.begin();
        return e;
    }

    /**
     * Calls {@code join} (the scope's own join) and, when {@code event} is recorded, notes its
     * outcome: {@code succeeded}, {@code timed out}, or {@code failed: <exception class>}.
     */
    static Object joined(ScopeEvent event, Callable<Object> join) throws Exception {
        if (event == null) {
            return join.call();
        }
        try {
            Object result = join.call();
            event.outcome = "succeeded";
            return result;
        } catch (TimeoutException e) {
            event.outcome = "timed out";
            throw e;
        } catch (Exception e) {
            event.outcome = "failed: " + e.getClass().getName();
            throw e;
        }
    }

    /**
     * Ends and commits {@code event} (null: not recorded, nothing to do), with the outcome of the
     * last join, or {@code not joined} when subtasks forked after it were cancelled by the close,
     * or {@code cancelled} when the scope was cancelled and never joined.
     *
     * @param event     what {@link #opened()} returned
     * @param name      the scope's name
     * @param policy    its policy (or its own joiner), as {@code toString}
     * @param forks     subtasks forked
     * @param unjoined  subtasks were forked after the last join
     * @param cancelled the scope was cancelled
     */
    static void closed(ScopeEvent event, String name, Object policy, long forks, boolean unjoined, boolean cancelled) {
        if (event == null) {
            return;
        }
        event.end();
        if (event.shouldCommit()) {
            event.name = name;
            event.policy = String.valueOf(policy);
            event.forks = forks;
            event.outcome = unjoined
                    ? "not joined"
                    : event.outcome != null ? event.outcome : cancelled ? "cancelled" : "closed without a join";
            event.commit();
        }
    }
}
