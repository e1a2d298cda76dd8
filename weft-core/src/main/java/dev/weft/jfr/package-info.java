/**
 * weft's own JFR events, next to the JDK's virtual-thread events in a recording, in
 * {@code jfr print} and in JDK Mission Control (category "weft"). Every event is off unless a
 * recording enables it by name, e.g. {@code jfr configure +dev.weft.Scope#enabled=true} or
 * {@code recording.enable("dev.weft.Scope")}; off, an event costs one check where it would be
 * emitted.
 *
 * <ul>
 *   <li>{@value dev.weft.scope.ScopeEvent#NAME}: a scope from open to close, with its name, joiner,
 *       forks and outcome ({@link dev.weft.scope.ScopeEvent}, beside the scope);</li>
 *   <li>{@value dev.weft.limit.LimiterRejectionEvent#NAME}: a {@code Limiter} turned a caller away
 *       ({@link dev.weft.limit.LimiterRejectionEvent}, beside the limiter);</li>
 *   <li>{@value dev.weft.jfr.PipelineStopEvent#NAME}: a weft.async pipeline stopped, and why
 *       ({@code dev.weft.async.PipelineStopEvent}, beside the pipeline in weft-async);</li>
 *   <li>{@code dev.weft.AsyncStraggler}: a core.async task on weft's executor factory parked in a
 *       channel operation too long ({@code dev.weft.async.StragglerEvent}, weft-async).</li>
 * </ul>
 */
package dev.weft.jfr;
