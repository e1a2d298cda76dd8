package dev.weft.limit;

import java.time.Duration;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Timespan;

/**
 * A {@link Limiter} turned a caller away (the caller got a {@link LimitExceededException}): an
 * instant event with the rejected caller's stack, in its thread. Off unless a recording enables
 * {@value #NAME}: {@code recording.enable(LimiterRejectionEvent.NAME)}, or
 * {@code jfr configure +dev.weft.LimiterRejection#enabled=true}. The event's name and fields are
 * what recordings and tools read; the class is public for its name only.
 */
@Name(LimiterRejectionEvent.NAME)
@Label("Limiter Rejection")
@Category("weft")
@Description("A weft Limiter turned a caller away: no permit free and no room to wait, or the wait ran out")
@Enabled(false)
public final class LimiterRejectionEvent extends Event {

    /** The event's name in recordings. */
    public static final String NAME = "dev.weft.LimiterRejection";

    @Label("Limiter")
    String limiter;

    @Label("Permits")
    @Description("The most callers in at once")
    int permits;

    @Label("Max Waiting")
    @Description("The most callers allowed to wait")
    int maxWaiting;

    @Label("Waited")
    @Description("The wait that ran out (the limiter's maxWait); 0 when there was no room to wait")
    @Timespan(Timespan.NANOSECONDS)
    long waited;

    LimiterRejectionEvent() {}

    /**
     * Commits a rejection when a recording has {@value #NAME} enabled.
     *
     * @param limiter    the limiter's name
     * @param permits    its permits
     * @param maxWaiting its room to wait
     * @param waited     the wait that ran out (the limiter's maxWait), or null when the caller was
     *                   turned away at once
     */
    static void emit(String limiter, int permits, int maxWaiting, Duration waited) {
        LimiterRejectionEvent e = new LimiterRejectionEvent();
        if (e.shouldCommit()) {
            e.limiter = limiter;
            e.permits = permits;
            e.maxWaiting = maxWaiting;
            e.waited = waited == null ? 0 : waited.toNanos();
            e.commit();
        }
    }
}
