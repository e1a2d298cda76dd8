/**
 * weft's own JFR events, next to the JDK's virtual-thread events in a recording, in
 * {@code jfr print} and in JDK Mission Control (category "weft"). Every event is off unless a
 * recording enables it by name, e.g. {@code jfr configure +dev.weft.Scope#enabled=true} or
 * {@code recording.enable("dev.weft.Scope")}; off, an event costs one check where it would be
 * emitted.
 *
 * <ul>
 *   <li>{@value dev.weft.jfr.ScopeEvent#NAME}: a scope from open to close, with its name, policy,
 *       forks and outcome;</li>
 *   <li>{@value dev.weft.jfr.LimiterRejectionEvent#NAME}: a {@code Limiter} turned a caller away.</li>
 * </ul>
 *
 * <p>weft-async defines its own beside the code that commits them: {@code dev.weft.PipelineStop}
 * ({@code dev.weft.async.PipelineStopEvent}) and {@code dev.weft.AsyncStraggler}
 * ({@code dev.weft.async.StragglerEvent}).
 */
package dev.weft.jfr;
