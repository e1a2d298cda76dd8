package dev.weft.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A weft scope ({@code dev.weft.scope.Scope}) from open to close: a duration event committed when
 * the scope closes, in the owner thread. Off unless a recording enables {@value #NAME}.
 * {@code Scope} begins one with {@link #opened()} and ends it with {@link #closed}.
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
    @Description("succeeded, failed: <exception>, timed out, cancelled, or not joined")
    String outcome;

    ScopeEvent() {
    }

    /**
     * An event begun now when a recording has {@value #NAME} enabled, else null: a scope nobody
     * records costs this one check (the unused event does not escape and is not allocated).
     */
    public static ScopeEvent opened() {
        ScopeEvent e = new ScopeEvent();
        if (!e.isEnabled()) {
            return null;
        }
        e.begin();
        return e;
    }

    /**
     * Ends and commits {@code event} (null: not recorded, nothing to do).
     *
     * @param event   what {@link #opened()} returned
     * @param name    the scope's name
     * @param policy  its policy, as its {@code toString}
     * @param forks   subtasks forked
     * @param outcome how it ended
     */
    public static void closed(ScopeEvent event, String name, Object policy, long forks, String outcome) {
        if (event == null) {
            return;
        }
        event.end();
        if (event.shouldCommit()) {
            event.name = name;
            event.policy = String.valueOf(policy);
            event.forks = forks;
            event.outcome = outcome;
            event.commit();
        }
    }
}
