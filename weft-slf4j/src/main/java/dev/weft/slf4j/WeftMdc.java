package dev.weft.slf4j;

import dev.weft.context.Context;
import dev.weft.context.ContextCarrier;
import dev.weft.context.ContextKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.MDC;

/**
 * Mirrors weft {@link ContextKey}s into the SLF4J {@link MDC}: for every body that binds them
 * ({@link Context#where}) and every task that weft conveys them to (scope forks, {@code vthread},
 * {@code vfuture}, weft executors, {@link Context#wrap wrapped} executors, weft-kotlin's
 * dispatchers), each mirrored key bound to a non-null value is an MDC entry, under the name you
 * chose, holding {@code String.valueOf(value)}. After the body or task those entries are put back
 * as the thread had them; a thread whose MDC was empty before (every new thread, every pool thread
 * weft restored) is cleared, so entries the task put itself go too and a reused pool thread keeps
 * nothing.
 *
 * <pre>{@code
 * static final ContextKey<String> REQUEST_ID = ContextKey.of("request-id");
 *
 * WeftMdc.mirror(Map.of(REQUEST_ID, "requestId"));          // once, at start-up
 * Context.where(REQUEST_ID, "r-42").run(() -> {
 *     log.info("here");                                    // %X{requestId} is r-42
 *     try (Scope scope = Scope.open()) {
 *         scope.fork(() -> { log.info("in a fork"); return null; });   // r-42 too
 *         scope.join();
 *     }
 * });
 * }</pre>
 *
 * <p>Works with any SLF4J binding that keeps an MDC (Logback, Log4j2's {@code log4j-slf4j2-impl});
 * weft-slf4j depends on {@code slf4j-api} only. Entries you put with {@code MDC.put} yourself are
 * not conveyed: bind a key and mirror it. A key that is not bound, or bound to {@code null}, has
 * no entry for the body (an entry of that name the thread had is removed, then put back).
 * Entries of other names that the thread has stay visible to the task.
 *
 * <p>The mirror is a {@link ContextCarrier}: it costs nothing until a snapshot is captured, then,
 * per task, a look-up per mirrored key, an MDC put per bound one and one restore (a {@code clear}
 * on a thread whose MDC was empty), measured by weft-bench's {@code ObservabilityBench} next to
 * {@code MdcBench}, the MDC's own cost of the same puts. With kotlinx's {@code MDCContext}: create
 * it inside the body that binds the keys, so the map it captures has the mirrored entries (see the
 * module README).
 */
public final class WeftMdc {

    private WeftMdc() {}

    /**
     * Mirrors each key of {@code namesByKey} into the MDC under its name, from now on, until the
     * returned registration is closed. Keys mirror in the map's iteration order.
     *
     * @param namesByKey keys and the MDC entry name of each
     * @return the registration; {@code close()} stops mirroring
     * @throws IllegalArgumentException if the map is empty, a name is blank or two keys share a name
     * @throws NullPointerException     if the map, a key or a name is null
     */
    public static ContextCarrier.Registration mirror(Map<? extends ContextKey<?>, String> namesByKey) {
        return ContextCarrier.register(new MdcCarrier(namesByKey));
    }

    /**
     * Mirrors {@code keys} into the MDC, each under its own {@link ContextKey#name() name}.
     *
     * @throws IllegalArgumentException if no key is given or two keys share a name
     * @throws NullPointerException     if a key is null
     * @see #mirror(Map)
     */
    public static ContextCarrier.Registration mirror(ContextKey<?>... keys) {
        Map<ContextKey<?>, String> names = new LinkedHashMap<>();
        for (ContextKey<?> k : keys) {
            Objects.requireNonNull(k, "a key to mirror into the MDC is null");
            names.put(k, k.name());
        }
        return mirror(names);
    }

    /** The carrier: nothing to capture (the keys are in the snapshot), MDC entries per task. */
    static final class MdcCarrier implements ContextCarrier<MdcCarrier> {

        private static final Restore CLEAR = MDC::clear;

        private final ContextKey<?>[] keys;
        private final String[] names;

        MdcCarrier(Map<? extends ContextKey<?>, String> namesByKey) {
            Objects.requireNonNull(namesByKey, "namesByKey");
            if (namesByKey.isEmpty()) {
                throw new IllegalArgumentException("WeftMdc.mirror needs at least one key, e.g."
                        + " WeftMdc.mirror(Map.of(REQUEST_ID, \"requestId\"))");
            }
            keys = new ContextKey<?>[namesByKey.size()];
            names = new String[keys.length];
            int i = 0;
            for (Map.Entry<? extends ContextKey<?>, String> e : namesByKey.entrySet()) {
                ContextKey<?> key = Objects.requireNonNull(e.getKey(), "a key to mirror into the MDC is null");
                String name = Objects.requireNonNull(e.getValue(), () -> "the MDC name of " + key + " is null");
                if (name.isBlank()) {
                    throw new IllegalArgumentException("the MDC name of " + key + " is blank; give it a name your"
                            + " log pattern uses, e.g. \"requestId\" for %X{requestId}");
                }
                for (int j = 0; j < i; j++) {
                    if (names[j].equals(name)) {
                        throw new IllegalArgumentException("two keys, " + keys[j] + " and " + key
                                + ", would share the MDC name \"" + name + "\"; give each its own name");
                    }
                }
                keys[i] = key;
                names[i++] = name;
            }
        }

        /** Always itself: the mirrored values are the snapshot's keys, read at attach. */
        @Override
        public MdcCarrier capture() {
            return this;
        }

        /**
         * Sets the mirrored entries for the task. On a thread whose MDC is empty (every new
         * thread, every pool thread weft restored before) the restore is one {@code MDC.clear()},
         * so entries the task put itself go too; on a thread with entries of its own, only the
         * mirrored names that changed are put back.
         */
        @Override
        public Restore attach(MdcCarrier self, Context.Snapshot snapshot) {
            if (alreadyMirrored(snapshot)) {
                return Restore.NOTHING; // e.g. a thread that inherited its parent's MDC: nothing to copy or undo
            }
            Map<String, String> before = MDC.getCopyOfContextMap();
            if (before == null || before.isEmpty()) {
                for (int i = 0; i < keys.length; i++) {
                    String value = valueOf(snapshot, keys[i]);
                    if (value != null) {
                        MDC.put(names[i], value);
                    }
                }
                return CLEAR;
            }
            boolean changed = false;
            for (int i = 0; i < keys.length; i++) {
                String value = valueOf(snapshot, keys[i]);
                if (!Objects.equals(value, before.get(names[i]))) {
                    changed = true;
                    put(names[i], value);
                }
            }
            return changed ? () -> restore(before) : Restore.NOTHING;
        }

        /**
         * True when {@code snapshot} mirrors at least one entry and the MDC already holds exactly
         * its entries (a thread that inherited them, a body nested in one that set them).
         */
        private boolean alreadyMirrored(Context.Snapshot snapshot) {
            boolean any = false;
            for (int i = 0; i < keys.length; i++) {
                String value = valueOf(snapshot, keys[i]);
                if (!Objects.equals(value, MDC.get(names[i]))) {
                    return false;
                }
                any |= value != null;
            }
            return any;
        }

        /** The entry for {@code key} in {@code snapshot}: its value as a string, null when unbound or null. */
        private static String valueOf(Context.Snapshot snapshot, ContextKey<?> key) {
            Object v = snapshot.isBound(key) ? snapshot.get(key) : null;
            return v == null ? null : String.valueOf(v);
        }

        /** Puts back the mirrored names as {@code before} had them. */
        private void restore(Map<String, String> before) {
            for (String name : names) {
                put(name, before.get(name));
            }
        }

        private static void put(String name, String value) {
            if (value == null) {
                MDC.remove(name);
            } else {
                MDC.put(name, value);
            }
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("WeftMdc{");
            for (int i = 0; i < keys.length; i++) {
                b.append(i == 0 ? "" : ", ").append(keys[i].name()).append("->").append(names[i]);
            }
            return b.append('}').toString();
        }
    }
}
