package dev.weft.jfr;

/**
 * The name of the limiter-rejection event, where it was before the event moved beside the limiter.
 *
 * @deprecated the event is {@link dev.weft.limit.LimiterRejectionEvent} now, its recorded name
 *             ({@value #NAME}) unchanged; use that class's {@code NAME}. Removed in the next
 *             release
 */
@Deprecated(since = "0.1.0")
public final class LimiterRejectionEvent {

    /** The event's name in recordings: {@link dev.weft.limit.LimiterRejectionEvent#NAME}. */
    public static final String NAME = dev.weft.limit.LimiterRejectionEvent.NAME;

    private LimiterRejectionEvent() {}
}
