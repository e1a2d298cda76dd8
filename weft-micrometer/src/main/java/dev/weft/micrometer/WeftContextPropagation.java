package dev.weft.micrometer;

import dev.weft.context.Context;
import dev.weft.context.ContextCarrier;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.ThreadLocalAccessor;
import java.util.Objects;

/**
 * Micrometer context-propagation through weft: every {@link ThreadLocalAccessor} registered in a
 * {@link ContextRegistry} (Micrometer Observation's current observation, Spring Security's
 * context, your own) is captured where weft captures a snapshot and restored around each task
 * weft runs with it: scope forks, {@code vthread}, {@code vfuture}, weft executors,
 * {@link Context#wrap wrapped} executors, weft-kotlin's dispatchers.
 *
 * <pre>{@code
 * WeftContextPropagation.install();                 // once, at start-up
 * try (Observation.Scope s = observation.openScope(); Scope scope = Scope.open()) {
 *     scope.fork(() -> registry.getCurrentObservation());   // the observation, in the fork
 *     scope.join();
 * }
 * }</pre>
 *
 * <p>The other direction, weft keys inside Reactor or any code that wraps tasks with
 * context-propagation's {@code ContextSnapshot}: wrap those tasks with weft too, e.g.
 * {@code Schedulers.onScheduleHook("weft", dev.weft.context.Context::wrap)} for Reactor. weft keys
 * are deliberately not a {@code ThreadLocalAccessor}: an accessor must set a value on a thread
 * and restore it later, which a key kept in a {@code java.lang.ScopedValue} cannot do (see
 * {@code doc/decisions/0701-micrometer-context-propagation-by-task-wrapping.md}).
 *
 * <p>Cost: nothing where no accessor has a value; else one {@code captureAll} per weft snapshot
 * and one {@code setThreadLocals}/close per task.
 */
public final class WeftContextPropagation {

    private WeftContextPropagation() {}

    /** Carries the accessors of {@link ContextRegistry#getInstance()}; see {@link #install(ContextRegistry)}. */
    public static ContextCarrier.Registration install() {
        return install(ContextRegistry.getInstance());
    }

    /**
     * Carries the thread-local values of {@code registry}'s accessors through every weft
     * conveyance, from now on.
     *
     * @return the registration; {@code close()} stops carrying
     */
    public static ContextCarrier.Registration install(ContextRegistry registry) {
        return ContextCarrier.register(new Carrier(Objects.requireNonNull(registry, "registry")));
    }

    /** Captures a ContextSnapshot when some accessor has a value; sets its thread locals per task. */
    private static final class Carrier implements ContextCarrier<ContextSnapshot> {
        private final ContextRegistry registry;
        private final ContextSnapshotFactory factory;

        Carrier(ContextRegistry registry) {
            this.registry = registry;
            this.factory =
                    ContextSnapshotFactory.builder().contextRegistry(registry).build();
        }

        @Override
        public ContextSnapshot capture() {
            for (ThreadLocalAccessor<?> a : registry.getThreadLocalAccessors()) {
                if (a.getValue() != null) {
                    return factory.captureAll();
                }
            }
            return null;
        }

        @Override
        public Restore attach(ContextSnapshot snapshot, Context.Snapshot keys) {
            ContextSnapshot.Scope scope = snapshot.setThreadLocals();
            return scope::close;
        }

        @Override
        public String toString() {
            return "Micrometer context-propagation";
        }
    }
}
