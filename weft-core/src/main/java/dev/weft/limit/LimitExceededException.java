package dev.weft.limit;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

/**
 * Thrown when a {@link Limiter} turns a caller away: all permits were taken and either the wait
 * queue was full or the caller waited longer than the limiter allows. It is a
 * {@link RejectedExecutionException}, so code that already handles an executor's rejection
 * handles a limiter's too. The right response is usually to shed the work (an HTTP server
 * answers 503) or retry later.
 */
public final class LimitExceededException extends RejectedExecutionException {

    private static final long serialVersionUID = 1L;

    private final String limiter;
    private final boolean timedOut;

    LimitExceededException(String limiter, int permits, int maxWaiting, Duration waited) {
        super(message(limiter, permits, maxWaiting, waited));
        this.limiter = limiter;
        this.timedOut = waited != null;
        // Made only where a Limiter turns a caller away: the one place every rejection passes.
        LimiterRejectionEvent.emit(limiter, permits, maxWaiting, waited);
    }

    /** The name of the limiter that rejected. */
    public String limiter() {
        return limiter;
    }

    /** True when the caller waited its {@code maxWait} in vain; false when the queue was full. */
    public boolean timedOut() {
        return timedOut;
    }

    private static String message(String limiter, int permits, int maxWaiting, Duration waited) {
        if (waited != null) {
            return "limiter " + limiter + ": no permit of " + permits + " came free within " + waited
                    + "; shed the work, retry later, or raise permits or maxWait";
        }
        String queue = maxWaiting == 0 ? "no waiting allowed" : maxWaiting + " already waiting";
        return "limiter " + limiter + ": all " + permits + " permits in use and " + queue
                + "; shed the work, retry later, or raise permits or maxWaiting";
    }
}
