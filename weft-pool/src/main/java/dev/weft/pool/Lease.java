package dev.weft.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

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
 * <p>A library that hands its users a handle of its own (weft-jdbc's {@code Connection}) may make
 * that handle the lease: subclass it and borrow with {@link Pool#borrow(java.time.Duration,
 * java.util.function.Function)}, so that a borrow allocates one object, not two.
 *
 * @param <T> the resource type
 */
public class Lease<T> implements AutoCloseable {

    private static final VarHandle ENDED;

    static {
        try {
            ENDED = MethodHandles.lookup().findVarHandle(Lease.class, "ended", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Slot<T> slot;

    @SuppressWarnings("unused") // through ENDED
    private volatile int ended;

    /**
     * A lease of {@code slot}, which the pool passed to the function given to
     * {@link Pool#borrow(java.time.Duration, java.util.function.Function)}; make exactly one per
     * slot so passed.
     */
    protected Lease(Slot<T> slot) {
        this.slot = Objects.requireNonNull(slot, "slot");
    }

    /**
     * The borrowed resource.
     *
     * @throws IllegalStateException after the lease was closed or invalidated
     */
    public final T get() {
        if (ended != 0) {
            throw new IllegalStateException("this lease of pool \"" + slot.pool.name()
                    + "\" has already been returned; borrow again to use a resource");
        }
        return slot.resource;
    }

    /** Whether the lease was closed or invalidated. */
    public final boolean isEnded() {
        return ended != 0;
    }

    /**
     * Returns the resource to the pool (after {@link ResourceFactory#reset}). A resource the
     * housekeeper found past its {@code maxLifetime}, or returned after the pool closed, is
     * destroyed instead. Idempotent.
     */
    @Override
    public void close() {
        end(false);
    }

    /**
     * Destroys the resource instead of returning it (it is broken), and lets the pool create
     * another when borrowers need one. Idempotent; nothing happens after {@link #close()}.
     */
    public void invalidate() {
        end(true);
    }

    /**
     * Ends the lease once: returns the resource, or destroys it when {@code broken}.
     *
     * @return false if the lease had already ended (nothing done)
     */
    protected final boolean end(boolean broken) {
        if (ENDED.compareAndSet(this, 0, 1)) {
            slot.pool.release(slot, broken);
            return true;
        }
        return false;
    }

    /** The name of the pool this lease is from (for a subclass's messages). */
    protected final String poolName() {
        return slot.pool.name();
    }

    /** The pool this lease is from. */
    protected final Pool<T> pool() {
        return slot.pool;
    }

    @Override
    public String toString() {
        return "Lease[pool=" + slot.pool.name() + (isEnded() ? ", ended]" : "]");
    }
}
