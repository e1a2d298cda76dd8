package dev.weft.jfr;

/**
 * The name of the scope event, where it was before the event moved beside the scope.
 *
 * @deprecated the event is {@link dev.weft.scope.ScopeEvent} now, its recorded name
 *             ({@value #NAME}) unchanged; use that class's {@code NAME}. Removed in the next
 *             release
 */
@Deprecated(since = "0.1.0")
public final class ScopeEvent {

    /** The event's name in recordings: {@link dev.weft.scope.ScopeEvent#NAME}. */
    public static final String NAME = dev.weft.scope.ScopeEvent.NAME;

    private ScopeEvent() {}
}
