package dev.weft.context;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;

/**
 * Binds {@link ContextKey}s for a body, captures the keys bound now, and conveys them to code that
 * runs elsewhere: other threads, executors, completion services.
 *
 * <p>Every conveyance is the same two steps: {@link #capture()} the keys bound at the hand-off
 * point, then run the task with that {@link Snapshot} re-bound ({@link Snapshot#run},
 * {@link Snapshot#call}, {@link Snapshot#wrap(Runnable)}). weft's scopes, {@code vthread},
 * {@code vfuture} and executors do it for you; {@link #wrap(ExecutorService)} does it for any
 * executor, so that tasks handed to plain {@code java.util.concurrent} code keep their context.
 *
 * <pre>{@code
 * static final ContextKey<String> USER = ContextKey.of("user");
 *
 * ExecutorService pool = Context.wrap(Executors.newFixedThreadPool(4));
 * Context.where(USER, "ann").run(() -> {
 *     Future<String> f = pool.submit(() -> USER.get());   // "ann" on the pool thread
 * });
 * }</pre>
 *
 * <h2>Cost</h2>
 * Capturing is O(1): the bindings in effect are one immutable object. Re-binding a snapshot in
 * another thread is one binding whatever the number of keys, so conveying 16 keys costs what
 * conveying one does. Binding {@code n} new keys copies the bindings in effect (a few keys, a few
 * nanoseconds). Reading a key is a look-up in that small array.
 *
 * <h2>Implementation</h2>
 * On JDK 25 and newer the bindings in effect live in one {@code java.lang.ScopedValue}; on JDK
 * 21-24, where {@code ScopedValue} is a preview API, in a plain {@code ThreadLocal} that is set for
 * the body and restored after it, with the same semantics. The system property
 * {@value #IMPLEMENTATION_PROPERTY} ({@code scoped-value} or {@code thread-local}) chooses one
 * explicitly; {@link #implementation()} says which is in use. Set to anything else (or to
 * {@code scoped-value} on JDK 21-24), it makes every use of context keys throw an
 * {@link IllegalStateException} that names the fix.
 *
 * <p>Memory consistency effects: actions in a thread before {@link #capture()} happen-before the
 * snapshot's task runs only through the hand-off that carries it (starting a thread, submitting to
 * an executor); the snapshot itself is immutable and safe to share.
 */
public final class Context {

    /**
     * System property choosing how bindings are kept: {@code scoped-value} (the default on JDK 25+)
     * or {@code thread-local} (the default, and the only choice, on JDK 21-24).
     */
    public static final String IMPLEMENTATION_PROPERTY = "weft.context";

    private Context() {}

    /**
     * Bindings of {@code key} to {@code value}, to put in effect for a body with
     * {@link Bindings#run} or {@link Bindings#call}; chain {@link Bindings#where} for more keys.
     * {@code value} may be {@code null}.
     *
     * @throws NullPointerException if {@code key} is null, with the fix in the message
     */
    public static <T> Bindings where(ContextKey<T> key, T value) {
        return Bindings.EMPTY.where(key, value);
    }

    /** The keys bound in the current thread now, with their values: O(1), nothing is copied. */
    public static Snapshot capture() {
        return Carriers.capture(Binder.INSTANCE.current());
    }

    /** {@code task}, wrapped to run with the keys bound now: {@code capture().wrap(task)}. */
    public static Runnable wrap(Runnable task) {
        return capture().wrap(task);
    }

    /** {@code task}, wrapped to run with the keys bound now: {@code capture().wrap(task)}. */
    public static <T> Callable<T> wrap(Callable<T> task) {
        return capture().wrap(task);
    }

    /**
     * An executor that runs each task with the keys bound where {@code execute} was called.
     *
     * @throws NullPointerException if {@code executor} is null
     */
    public static Executor wrap(Executor executor) {
        Objects.requireNonNull(executor, "executor");
        if (executor instanceof ContextExecutorService) {
            return executor;
        }
        if (executor instanceof ExecutorService service) {
            return new ContextExecutorService(service);
        }
        return new ContextExecutor(executor);
    }

    /**
     * An executor service that runs each task ({@code execute}, {@code submit}, {@code invokeAll},
     * {@code invokeAny}) with the keys bound where it was handed over. Shutting down and closing
     * the wrapper shuts down and closes {@code executor}. Wrapping twice returns the same wrapper.
     *
     * @throws NullPointerException if {@code executor} is null
     */
    public static ExecutorService wrap(ExecutorService executor) {
        Objects.requireNonNull(executor, "executor");
        return executor instanceof ContextExecutorService c ? c : new ContextExecutorService(executor);
    }

    /**
     * A completion service that runs each submitted task with the keys bound where it was
     * submitted; {@code take} and {@code poll} are {@code service}'s.
     *
     * @throws NullPointerException if {@code service} is null
     */
    public static <V> CompletionService<V> wrap(CompletionService<V> service) {
        Objects.requireNonNull(service, "service");
        return service instanceof ContextCompletionService<V> c ? c : new ContextCompletionService<>(service);
    }

    /**
     * Which implementation keeps the bindings in this JVM: {@code scoped-value} or {@code thread-local}.
     *
     * @throws IllegalStateException if {@value #IMPLEMENTATION_PROPERTY} names no usable implementation
     */
    public static String implementation() {
        return Binder.INSTANCE.name();
    }

    static NullPointerException nullKey() {
        return new NullPointerException("context key must not be null; declare one with ContextKey.of(\"name\")");
    }

    /**
     * A body that returns a value and may throw {@code X}: what {@link Bindings#call} and
     * {@link Snapshot#call} run. A {@code Callable} fits as {@code callable::call}.
     *
     * @param <T> the result
     * @param <X> what it may throw
     */
    @FunctionalInterface
    public interface CallableOp<T, X extends Throwable> {
        /** Runs the body. */
        T call() throws X;
    }

    /**
     * Key-value pairs to put in effect for a body, on top of the keys already bound where the body
     * runs (a key bound again takes the new value for the body's extent). Immutable; build with
     * {@link Context#where} and {@link #where}.
     */
    public static final class Bindings {

        static final Bindings EMPTY = new Bindings(new ContextKey<?>[0], new Object[0]);

        private final ContextKey<?>[] keys;
        private final Object[] values;

        private Bindings(ContextKey<?>[] keys, Object[] values) {
            this.keys = keys;
            this.values = values;
        }

        /**
         * These bindings and {@code key} bound to {@code value} (replacing an earlier binding of
         * the same key in these bindings).
         *
         * @throws NullPointerException if {@code key} is null
         */
        public <T> Bindings where(ContextKey<T> key, T value) {
            if (key == null) {
                throw nullKey();
            }
            int n = keys.length;
            for (int i = 0; i < n; i++) {
                if (keys[i] == key) {
                    Object[] vs = values.clone();
                    vs[i] = value;
                    return new Bindings(keys, vs);
                }
            }
            ContextKey<?>[] ks = Arrays.copyOf(keys, n + 1);
            Object[] vs = Arrays.copyOf(values, n + 1);
            ks[n] = key;
            vs[n] = value;
            return new Bindings(ks, vs);
        }

        /** Runs {@code body} in the current thread with these bindings in effect. */
        public void run(Runnable body) {
            Objects.requireNonNull(body, "body");
            Carriers.run(Carriers.capture(Binder.INSTANCE.current().plus(keys, values)), body);
        }

        /** Calls {@code body} in the current thread with these bindings in effect and returns its result. */
        public <T, X extends Throwable> T call(CallableOp<? extends T, X> body) throws X {
            Objects.requireNonNull(body, "body");
            return Carriers.call(Carriers.capture(Binder.INSTANCE.current().plus(keys, values)), body);
        }

        @Override
        public String toString() {
            return "Bindings" + Snapshot.describe(keys, values, keys.length);
        }
    }

    /**
     * The keys bound in one thread at one moment, with their values: what conveyance carries from
     * the thread that hands work over to the thread that runs it. Immutable and safe to share.
     * Every snapshot that binds no key and carries nothing ({@link ContextCarrier}) is {@link #empty()} itself.
     * Running a body with a snapshot puts <em>exactly</em> its bindings in effect: a key bound
     * where the body runs but not in the snapshot is unbound for the body.
     */
    public static final class Snapshot {

        private static final Snapshot EMPTY = new Snapshot(new ContextKey<?>[0], new Object[0]);

        final ContextKey<?>[] keys;
        final Object[] values;
        /** What registered {@link ContextCarrier}s captured with this snapshot; null: nothing. */
        final Carriers.Carried carried;
        /** The snapshot with these keys that {@link Carriers#capture} made last, to reuse it. */
        Snapshot derived;

        private Snapshot(ContextKey<?>[] keys, Object[] values) {
            this(keys, values, null);
        }

        private Snapshot(ContextKey<?>[] keys, Object[] values, Carriers.Carried carried) {
            this.keys = keys;
            this.values = values;
            this.carried = carried;
        }

        /** These keys carrying {@code c} instead of what this snapshot carries. */
        Snapshot carrying(Carriers.Carried c) {
            return c == carried ? this : c == null && keys.length == 0 ? EMPTY : new Snapshot(keys, values, c);
        }

        /** The snapshot with no key bound. */
        public static Snapshot empty() {
            return EMPTY;
        }

        int indexOf(ContextKey<?> key) {
            ContextKey<?>[] ks = keys;
            for (int i = ks.length - 1; i >= 0; i--) {
                if (ks[i] == key) {
                    return i;
                }
            }
            return -1;
        }

        /** This snapshot with {@code keys} bound to {@code values} on top. */
        Snapshot plus(ContextKey<?>[] newKeys, Object[] newValues) {
            if (newKeys.length == 0) {
                return this;
            }
            ContextKey<?>[] ks = Arrays.copyOf(keys, keys.length + newKeys.length);
            Object[] vs = Arrays.copyOf(values, values.length + newValues.length);
            int n = keys.length;
            for (int j = 0; j < newKeys.length; j++) {
                int i = indexOf(newKeys[j]);
                if (i >= 0) {
                    vs[i] = newValues[j];
                } else {
                    ks[n] = newKeys[j];
                    vs[n] = newValues[j];
                    n++;
                }
            }
            return n == ks.length
                    ? new Snapshot(ks, vs, carried)
                    : new Snapshot(Arrays.copyOf(ks, n), Arrays.copyOf(vs, n), carried);
        }

        /**
         * This snapshot with {@code key} bound to {@code value} as well (replacing its value if
         * it is bound here).
         *
         * @throws NullPointerException if {@code key} is null
         */
        public <T> Snapshot with(ContextKey<T> key, T value) {
            if (key == null) {
                throw nullKey();
            }
            return plus(new ContextKey<?>[] {key}, new Object[] {value});
        }

        /** True when {@code key} is bound in this snapshot. */
        public boolean isBound(ContextKey<?> key) {
            return indexOf(key) >= 0;
        }

        /** The value of {@code key} in this snapshot, or the key's default when it is not bound here. */
        @SuppressWarnings("unchecked")
        public <T> T get(ContextKey<T> key) {
            int i = indexOf(key);
            return i < 0 ? key.defaultValue() : (T) values[i];
        }

        /** How many keys this snapshot binds, {@link ContextKey#hidden hidden} keys left out. */
        public int size() {
            int n = 0;
            for (ContextKey<?> k : keys) {
                n += k.isHidden() ? 0 : 1;
            }
            return n;
        }

        /** True when this snapshot binds no key at all, hidden ones included: running a body with it binds nothing. */
        boolean bindsNothing() {
            return keys.length == 0;
        }

        /**
         * The bindings as an unmodifiable map from key to value, in the order they were bound,
         * {@link ContextKey#hidden hidden} keys left out.
         */
        public Map<ContextKey<?>, Object> toMap() {
            Map<ContextKey<?>, Object> m = new LinkedHashMap<>();
            for (int i = 0; i < keys.length; i++) {
                if (!keys[i].isHidden()) {
                    m.put(keys[i], values[i]);
                }
            }
            return Collections.unmodifiableMap(m);
        }

        /** Runs {@code body} in the current thread with exactly this snapshot's bindings in effect. */
        public void run(Runnable body) {
            Objects.requireNonNull(body, "body");
            Carriers.run(this, body);
        }

        /** Calls {@code body} in the current thread with exactly this snapshot's bindings in effect. */
        public <T, X extends Throwable> T call(CallableOp<? extends T, X> body) throws X {
            Objects.requireNonNull(body, "body");
            return Carriers.call(this, body);
        }

        /** {@code task}, wrapped to run with this snapshot's bindings wherever it runs. */
        public Runnable wrap(Runnable task) {
            Objects.requireNonNull(task, "task");
            return () -> Carriers.run(this, task);
        }

        /** {@code task}, wrapped to run with this snapshot's bindings wherever it runs. */
        public <T> Callable<T> wrap(Callable<T> task) {
            Objects.requireNonNull(task, "task");
            return () -> Carriers.call(this, task::call);
        }

        @Override
        public String toString() {
            return "Snapshot" + describe(keys, values, keys.length);
        }

        static String describe(ContextKey<?>[] keys, Object[] values, int n) {
            StringBuilder b = new StringBuilder("{");
            String sep = "";
            for (int i = 0; i < n; i++) {
                if (!keys[i].isHidden()) {
                    b.append(sep).append(keys[i].name()).append('=').append(values[i]);
                    sep = ", ";
                }
            }
            return b.append('}').toString();
        }
    }
}
