package dev.weft.pool;

/**
 * The pool was closed before or while the borrower waited. Every waiting borrower gets one at the
 * moment {@link Pool#close()} starts.
 */
public final class PoolClosedException extends PoolException {

    private static final long serialVersionUID = 1L;

    PoolClosedException(String pool, String message) {
        super(pool, message, null);
    }
}
