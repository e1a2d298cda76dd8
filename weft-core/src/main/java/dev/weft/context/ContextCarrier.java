package dev.weft.context;

import java.util.Objects;

/**
 * Carries context that is not a weft {@link ContextKey} (an OpenTelemetry {@code Context}, SLF4J
 * MDC entries) along every conveyance weft makes: scope forks, {@code vthread}, {@code vfuture},
 * weft executors, {@link Context#wrap wrapped} executors and weft-kotlin's dispatchers.
 *
 * <p>A carrier is registered once, with {@link #register}, by an integration (weft-otel,
 * weft-slf4j) or by the application. From then on:
 * <ul>
 *   <li>{@link #capture()} runs in the thread that captures a snapshot ({@link Context#capture()},
 *       which every conveyance calls once at the hand-off, and {@link Context.Bindings#run}/
 *       {@link Context.Bindings#call}, which bind keys in the current thread): once per snapshot,
 *       whatever the number of keys or of tasks that snapshot later runs;</li>
 *   <li>{@link #attach} runs in the thread that runs a task with that snapshot, just before the
 *       snapshot's keys are put in effect (read them from its {@code keys} argument), and the
 *       {@link Restore} it returns runs after the task, in the same thread, whether the task
 *       returned or threw.</li>
 * </ul>
 * So the foreign context is captured where the work is handed over and in effect exactly for the
 * task, and a reused thread keeps nothing of it. A snapshot keeps the state it captured:
 * {@link Context.Snapshot#with} adds keys and keeps it. Carriers attach in the order they were
 * registered and restore in the reverse order.
 *
 * <p>Cost: with no carrier registered, conveyance costs what it did without this interface (one
 * volatile read per capture). With carriers, a capture calls each carrier's {@code capture} and,
 * when every carrier returns the very state the current snapshot already carries (a fork that
 * forks again, or a thread forking many times, with nothing changed), returns that snapshot
 * without allocating.
 *
 * <pre>{@code
 * // The current value of some thread-local system, conveyed like a weft key:
 * ContextCarrier<String> tenant = new ContextCarrier<>() {
 *     public String capture() { return Tenant.current(); }
 *     public Restore attach(String t, Context.Snapshot keys) {
 *         String before = Tenant.current();
 *         Tenant.set(t);
 *         return () -> Tenant.set(before);
 *     }
 * };
 * ContextCarrier.Registration r = ContextCarrier.register(tenant);   // once, at start-up
 * }</pre>
 *
 * <p>Implementations must be thread-safe, fast (they run once per conveyance) and must not throw
 * in normal operation: an exception from {@code capture} fails the capture (the fork, the submit),
 * one from {@code attach} fails the task before it starts (carriers already attached are
 * restored), and one from a {@code Restore} is thrown after the task, or added as suppressed to the
 * task's own exception. Why a registered carrier rather than a {@code ServiceLoader}:
 * {@code doc/decisions/0700-foreign-context-rides-in-the-snapshot.md}.
 *
 * @param <S> the captured state; immutable or never modified after capture, since a snapshot may run
 *            many tasks at once
 */
public interface ContextCarrier<S> {

    /**
     * The foreign context current in this thread, to carry in the snapshot being captured, or
     * {@code null} when there is nothing to carry (then {@link #attach} is not called for it).
     * Called in the capturing thread, once per snapshot.
     */
    S capture();

    /**
     * Puts {@code state} in effect in the current thread for a task and returns what restores the
     * thread as it was. Called in the thread that runs the task, just before the task's keys are
     * put in effect: read them from {@code keys}, not with {@link ContextKey#get()}.
     *
     * @param state what {@link #capture()} returned, never null
     * @param keys  the snapshot the task runs with: its keys, to mirror them elsewhere
     * @return what to run after the task; {@link Restore#NOTHING} when nothing changed
     */
    Restore attach(S state, Context.Snapshot keys);

    /**
     * Registers {@code carrier}: every snapshot captured from now on captures it too. Snapshots
     * captured before do not carry it; snapshots captured while it is registered keep carrying it
     * after it is {@linkplain Registration#close() unregistered}.
     *
     * @return the registration; closing it unregisters the carrier
     * @throws IllegalArgumentException if this very carrier is already registered
     * @throws NullPointerException     if {@code carrier} is null
     */
    static Registration register(ContextCarrier<?> carrier) {
        Objects.requireNonNull(carrier, "carrier");
        return Carriers.register(carrier);
    }

    /** Undoes what {@link #attach} did: run once, after the task, in the thread that ran it. */
    @FunctionalInterface
    interface Restore {

        /** Restores nothing: what {@link #attach} returns when it changed nothing. */
        Restore NOTHING = () -> {};

        /** Puts back what was in effect before {@link #attach}. */
        void restore();
    }

    /** A registered carrier; {@link #close()} unregisters it (once; again does nothing). */
    interface Registration extends AutoCloseable {

        /** Unregisters the carrier: snapshots captured from now on no longer capture it. */
        @Override
        void close();
    }
}
