/**
 * Structured concurrency on final JDK APIs: a {@link dev.weft.scope.Scope} forks
 * {@link dev.weft.scope.Subtask}s on virtual threads, joins them under a {@link dev.weft.scope.Joiner}
 * (all succeed, first success, await all, or your own), with deadlines, a concurrency cap and nesting, and never returns while one
 * of its threads is still running. Subtasks see the context keys bound at the fork
 * ({@link dev.weft.context}).
 */
package dev.weft.scope;
