package dev.weft.pool;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One borrow of one resource from a {@link Pool}. Closing the lease returns the resource;
 * {@link #invalidate()} destroys it instead. Use it in try-with-resources:
 *
 * <pre>{@code
 * try (Lease<Connection> lease = pool.borrow()) {
 *     use(lease.get());
 * }
 * }</pre>
 *
 * <p>A lease ends once: a second {@link #close()} or {@link #invalidate()} does nothing, and
 * {@link #get()} after the end throws, so a resource is never used by two borrowers through the
 * same lease. A lease is meant for the thread that borrowed it, but may be handed to another and
 * closed there.
 *
 * @param <T> the resource type
 */
public final class Lease<T> implements AutoCloseable {

    private final Pool<T> pool;
    private final Pool.Entry<T> entry;
    private final AtomicBoolean ended = new AtomicBoolean();

    Lease(Pool<T> pool, Pool.Entry<T> entry) {
        this.pool = pool;
        this.entry = entry;
    }

    /**
     * The borrowed resource.
     *
     * @throws IllegalStateException after the lease was closed or invalidated
     */
    public T get() {
        if (ended.get()) {
            throw new IllegalStateException("this lease of pool \"" + pool.name()
                    + "\" has already been returned; borrow again to use a resource");
        }
        return entry.resource;
    }

    /** Whether the lease was closed or invalidated. */
    public boolean isEnded() {
        return ended.get();
    }

    /**
     * Returns the resource to the pool (after {@link ResourceFactory#reset}). A resource past its
     * {@code maxLifetime}, or returned after the pool closed, is destroyed instead. Idempotent.
     */
    @Override
    public void close() {
        if (ended.compareAndSet(false, true)) {
            pool.release(entry, false);
        }
    }

    /**
     * Destroys the resource instead of returning it (it is broken), and lets the pool create
     * another when borrowers need one. Idempotent; nothing happens after {@link #close()}.
     */
    public void invalidate() {
        if (ended.compareAndSet(false, true)) {
            pool.release(entry, true);
        }
    }

    @Override
    public String toString() {
        return "Lease[pool=" + pool.name() + (ended.get() ? ", ended]" : "]");
    }
}
