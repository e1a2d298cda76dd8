package dev.weft.otel;

import dev.weft.context.ContextCarrier;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;

/**
 * Conveys the current OpenTelemetry {@link Context} (the current span, baggage, anything stored in
 * it) through every weft conveyance, exactly like a weft context key: scope forks, {@code vthread},
 * {@code vfuture}, weft executors, {@link dev.weft.context.Context#wrap wrapped} executors and
 * weft-kotlin's dispatchers. A span started in a parent is then the parent of the spans its forks
 * start, and baggage set in a request is read in its subtasks.
 *
 * <pre>{@code
 * WeftOtel.install();                                       // once, at start-up
 * Span parent = tracer.spanBuilder("page").startSpan();
 * try (var ignored = parent.makeCurrent(); Scope scope = Scope.open()) {
 *     scope.fork(() -> tracer.spanBuilder("user").startSpan().end());   // a child of "page"
 *     scope.join();
 * } finally {
 *     parent.end();
 * }
 * }</pre>
 *
 * <p>The OpenTelemetry context current where weft captures a snapshot (at the fork, the submit) is
 * made current for the task ({@link Context#makeCurrent()}) and the task's scope is closed after
 * it, so no span stays current on a reused thread. Where the root context is current nothing is
 * captured, and the task runs with the context its thread has (the root, on threads weft starts).
 * The capture is one {@link Context#current()} per snapshot, not per key or per task.
 *
 * <p>weft-otel depends on {@code opentelemetry-api} only; any SDK or agent that keeps the context
 * in OpenTelemetry's default {@code ContextStorage} works.
 */
public final class WeftOtel {

    private static ContextCarrier.Registration installed; // guarded by WeftOtel.class

    private WeftOtel() {}

    /**
     * Makes every weft conveyance carry the current OpenTelemetry context from now on. Calling it
     * again while installed returns the same registration.
     *
     * @return the registration; {@code close()} stops carrying (snapshots captured before keep
     *         carrying what they captured)
     */
    public static synchronized ContextCarrier.Registration install() {
        if (installed == null) {
            ContextCarrier.Registration r = ContextCarrier.register(new OtelCarrier());
            installed = new ContextCarrier.Registration() {
                @Override
                public void close() {
                    synchronized (WeftOtel.class) {
                        if (installed == this) {
                            installed = null;
                        }
                        r.close();
                    }
                }

                @Override
                public String toString() {
                    return "WeftOtel" + r;
                }
            };
        }
        return installed;
    }

    /** True while {@link #install()} is in effect. */
    public static synchronized boolean isInstalled() {
        return installed != null;
    }

    /** The carrier: the OpenTelemetry context current at capture, made current around each task. */
    static final class OtelCarrier implements ContextCarrier<Context> {

        @Override
        public Context capture() {
            Context c = Context.current();
            return c == Context.root() ? null : c;
        }

        @Override
        public Restore attach(Context context, dev.weft.context.Context.Snapshot keys) {
            Scope scope = context.makeCurrent();
            return scope::close;
        }

        @Override
        public String toString() {
            return "OpenTelemetry context";
        }
    }
}
