package dev.weft.pool;

/**
 * How a {@link Pool} makes, checks, cleans and ends its resources.
 *
 * <p>The pool calls {@link #create()} on virtual threads of its own, never on a borrower's
 * thread, with at most {@code maxCreating} calls in flight. {@link #validate} runs on the
 * borrower's thread, only for a resource that sat idle longer than {@code validateAfter};
 * {@link #reset} runs on the returning thread; {@link #destroy} runs on whichever thread ends the
 * resource. A method that throws is treated as "this resource is broken": the pool destroys it
 * and never hands it out again.
 *
 * <pre>{@code
 * ResourceFactory<Socket> sockets = ResourceFactory.of(
 *         () -> new Socket("127.0.0.1", 5432),
 *         Socket::close);
 * }</pre>
 *
 * @param <T> the resource type
 */
public interface ResourceFactory<T> {

    /**
     * Makes a new resource. It may block (a network connection); it runs on a virtual thread.
     *
     * @throws Exception when the resource cannot be made; the pool retries with a back-off while
     *                   borrowers wait, and puts the last failure in their timeout exception
     */
    T create() throws Exception;

    /**
     * Whether {@code resource} still works. Called before a resource that sat idle longer than
     * {@code validateAfter} is handed out; {@code false} or an exception destroys it and the
     * borrower gets another one. The default trusts every resource.
     */
    default boolean validate(T resource) throws Exception {
        return true;
    }

    /**
     * Puts back what a borrower changed before the next borrower sees the resource (a JDBC
     * connection's auto-commit, isolation, an open transaction). An exception destroys it. The
     * default does nothing.
     */
    default void reset(T resource) throws Exception {}

    /** Ends {@code resource} (closes a connection). Called once per resource. */
    void destroy(T resource) throws Exception;

    /** A factory from a creating function and a destroying function, trusting every resource. */
    static <T> ResourceFactory<T> of(Creator<T> create, Destroyer<T> destroy) {
        java.util.Objects.requireNonNull(create, "create");
        java.util.Objects.requireNonNull(destroy, "destroy");
        return new ResourceFactory<>() {
            @Override
            public T create() throws Exception {
                return create.create();
            }

            @Override
            public void destroy(T resource) throws Exception {
                destroy.destroy(resource);
            }
        };
    }

    /** Makes a resource; see {@link ResourceFactory#create()}. */
    @FunctionalInterface
    interface Creator<T> {
        /** Makes a resource or throws. */
        T create() throws Exception;
    }

    /** Ends a resource; see {@link ResourceFactory#destroy(Object)}. */
    @FunctionalInterface
    interface Destroyer<T> {
        /** Ends {@code resource} or throws. */
        void destroy(T resource) throws Exception;
    }
}
