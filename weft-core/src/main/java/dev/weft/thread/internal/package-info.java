/**
 * Helpers that weft's own modules share and users should not call: the JVM-wide timer that scope
 * deadlines and the Kotlin dispatchers' delays run on ({@link dev.weft.thread.internal.VirtualTimer})
 * and durations written for people in weft's messages ({@link dev.weft.thread.internal.Durations}).
 *
 * <p>weft-core's module descriptor exports this package only to weft's modules (a qualified
 * export); on the class path it is reachable like any package, but it is not an API and may
 * change in any release (doc/decisions/0107).
 */
package dev.weft.thread.internal;
