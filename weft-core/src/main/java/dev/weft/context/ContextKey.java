package dev.weft.context;

import java.util.Objects;

/**
 * A named slot for a value that follows the code that runs on a caller's behalf: bound for the
 * extent of a body with {@link Context#where}, read anywhere below it with {@link #get()}, and
 * conveyed by every weft fork, {@code vthread}, {@code vfuture}, executor and scope.
 *
 * <p>A key is the context counterpart of a {@code ScopedValue} (on JDK 25 and newer every key is
 * backed by one): a binding is immutable, visible only in the thread that made it and in the
 * threads weft starts from there, and gone when the body returns. Unlike a {@code ThreadLocal}
 * or a Clojure dynamic var, a key costs a new thread nothing until the thread reads it.
 *
 * <pre>{@code
 * static final ContextKey<String> REQUEST_ID = ContextKey.of("request-id");
 * static final ContextKey<Integer> RETRIES = ContextKey.of("retries", 3);
 *
 * Context.where(REQUEST_ID, "r-42").run(() -> {
 *     try (Scope scope = Scope.open()) {
 *         scope.fork(() -> log(REQUEST_ID.get()));   // "r-42" in the forked thread too
 *         scope.join();
 *     }
 * });
 * RETRIES.get();                                     // 3: unbound, so the key's default
 * }</pre>
 *
 * <p>Keys are compared by identity: two keys of the same name are different keys. Declare each
 * one once, in a {@code static final} field.
 *
 * <p>A library that conveys state of its own with the user's keys (weft's scopes do: the current
 * scope) declares a {@link #hidden} key: it is conveyed like any other, but a snapshot's views
 * ({@link Context.Snapshot#size()}, {@link Context.Snapshot#toMap()}, {@code toString}) leave it
 * out, so that users see only their own keys.
 *
 * @param <T> the type of the value
 */
public final class ContextKey<T> {

    private final String name;
    private final T defaultValue;
    private final boolean hidden;

    private ContextKey(String name, T defaultValue, boolean hidden) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException(
                    "a context key needs a name for messages and debugging, e.g. \"request-id\"");
        }
        this.name = name;
        this.defaultValue = defaultValue;
        this.hidden = hidden;
    }

    /** A new key named {@code name} whose value is {@code null} where it is not bound. */
    public static <T> ContextKey<T> of(String name) {
        return new ContextKey<>(name, null, false);
    }

    /** A new key named {@code name} whose value is {@code defaultValue} where it is not bound. */
    public static <T> ContextKey<T> of(String name, T defaultValue) {
        return new ContextKey<>(name, defaultValue, false);
    }

    /**
     * A new key named {@code name}, {@code null} where it is not bound, that a library keeps for
     * itself: conveyed like every key, but left out of a snapshot's {@code size}, {@code toMap}
     * and {@code toString}, which show the user's keys.
     */
    public static <T> ContextKey<T> hidden(String name) {
        return new ContextKey<>(name, null, true);
    }

    /** True for a {@link #hidden} key. */
    boolean isHidden() {
        return hidden;
    }

    /** The key's name, for messages. */
    public String name() {
        return name;
    }

    /** The value bound to this key in the current thread, or the key's default when it is not bound. */
    @SuppressWarnings("unchecked")
    public T get() {
        Context.Snapshot s = Binder.INSTANCE.current();
        int i = s.indexOf(this);
        return i < 0 ? defaultValue : (T) s.values[i];
    }

    /** The value bound to this key in the current thread, or {@code other} when it is not bound. */
    @SuppressWarnings("unchecked")
    public T orElse(T other) {
        Context.Snapshot s = Binder.INSTANCE.current();
        int i = s.indexOf(this);
        return i < 0 ? other : (T) s.values[i];
    }

    /** True when this key is bound in the current thread (to any value, {@code null} included). */
    public boolean isBound() {
        return Binder.INSTANCE.current().indexOf(this) >= 0;
    }

    /** The value {@link #get()} returns where the key is not bound. */
    public T defaultValue() {
        return defaultValue;
    }

    @Override
    public String toString() {
        return "ContextKey[" + name + "]";
    }
}
