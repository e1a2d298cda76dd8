package dev.weft.pool;

import java.time.Duration;

/**
 * No resource became free within the borrower's {@code maxWait}. The message names the pool, its
 * {@code maxSize}, how long the caller waited and what the pool was doing (in use, idle, being
 * created, waiting); the cause, when there is one, is the last failure to create a resource.
 */
public final class PoolTimeoutException extends PoolException {

    private static final long serialVersionUID = 1L;

    private final transient Duration waited;

    PoolTimeoutException(String pool, String message, Duration waited, Throwable cause) {
        super(pool, message, cause);
        this.waited = waited;
    }

    /** How long the borrower waited before giving up. */
    public Duration waited() {
        return waited;
    }
}
