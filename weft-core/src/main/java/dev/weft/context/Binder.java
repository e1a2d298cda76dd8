package dev.weft.context;

import java.util.Locale;

/**
 * Keeps the bindings in effect in the current thread: one immutable {@link Context.Snapshot},
 * put in effect for the extent of a body and restored after it. Two implementations with the
 * same semantics: {@code ScopedValueBinder} (JDK 25+, compiled from src/main/java25) and
 * {@link ThreadLocalBinder} (any JDK).
 */
abstract class Binder {

    static final Binder INSTANCE = selectOrExplain();

    /** The bindings in effect in the current thread. */
    abstract Context.Snapshot current();

    /** Runs {@code body} with exactly {@code bindings} in effect. */
    abstract void run(Context.Snapshot bindings, Runnable body);

    /** Calls {@code body} with exactly {@code bindings} in effect. */
    abstract <T, X extends Throwable> T call(Context.Snapshot bindings, Context.CallableOp<? extends T, X> body)
            throws X;

    /** {@code scoped-value} or {@code thread-local}. */
    abstract String name();

    /**
     * The binder the system property asks for, or one that explains a bad setting at every use:
     * thrown from this class's initializer, the error would surface once as an
     * ExceptionInInitializerError and then as a NoClassDefFoundError that no longer says why.
     */
    private static Binder selectOrExplain() {
        try {
            return select();
        } catch (IllegalStateException e) {
            return new Misconfigured(e.getMessage());
        }
    }

    private static Binder select() {
        String wanted =
                System.getProperty(Context.IMPLEMENTATION_PROPERTY, "").strip().toLowerCase(Locale.ROOT);
        switch (wanted) {
            case "", "scoped-value" -> {
                Binder scoped = scopedValueBinder();
                if (scoped != null) {
                    return scoped;
                }
                if (!wanted.isEmpty()) {
                    throw new IllegalStateException("system property " + Context.IMPLEMENTATION_PROPERTY
                            + "=scoped-value needs JDK 25 or newer (this is " + Runtime.version()
                            + "); leave it unset or set it to thread-local");
                }
                return new ThreadLocalBinder();
            }
            case "thread-local" -> {
                return new ThreadLocalBinder();
            }
            default ->
                throw new IllegalStateException("system property " + Context.IMPLEMENTATION_PROPERTY + "=" + wanted
                        + " is not an implementation; set it to scoped-value or thread-local, or leave it unset");
        }
    }

    private static Binder scopedValueBinder() {
        if (Runtime.version().feature() < 25) {
            return null;
        }
        try {
            // Compiled with --release 25 into the same package; absent when weft was built on an older JDK.
            return (Binder) Class.forName("dev.weft.context.ScopedValueBinder")
                    .getDeclaredConstructor()
                    .newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }

    /** Stands in for a binder when {@value Context#IMPLEMENTATION_PROPERTY} is set wrong: every use says how to fix it. */
    private static final class Misconfigured extends Binder {
        private final String message;

        Misconfigured(String message) {
            this.message = message;
        }

        private IllegalStateException error() {
            return new IllegalStateException(message);
        }

        @Override
        Context.Snapshot current() {
            throw error();
        }

        @Override
        void run(Context.Snapshot bindings, Runnable body) {
            throw error();
        }

        @Override
        <T, X extends Throwable> T call(Context.Snapshot bindings, Context.CallableOp<? extends T, X> body) {
            throw error();
        }

        @Override
        String name() {
            throw error();
        }
    }
}
