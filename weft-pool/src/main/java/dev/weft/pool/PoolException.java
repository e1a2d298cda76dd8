package dev.weft.pool;

/**
 * A borrow that could not be served: the pool timed out ({@link PoolTimeoutException}) or is
 * closed ({@link PoolClosedException}). The message names the pool and its state.
 */
public sealed class PoolException extends RuntimeException permits PoolTimeoutException, PoolClosedException {

    private static final long serialVersionUID = 1L;

    private final String pool;

    PoolException(String pool, String message, Throwable cause) {
        super(message, cause);
        this.pool = pool;
    }

    /** The name of the pool that refused the borrow. */
    public String pool() {
        return pool;
    }
}
