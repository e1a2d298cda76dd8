/**
 * Context that follows virtual threads everywhere: {@link dev.weft.context.ContextKey}s bound for
 * a body ({@link dev.weft.context.Context#where}), captured where work is handed over
 * ({@link dev.weft.context.Context#capture()}) and re-bound where it runs. Every weft fork,
 * {@code vthread}, {@code vfuture}, executor and scope conveys them; {@code Context.wrap} conveys
 * them through any {@code Executor}, {@code ExecutorService} or {@code CompletionService}.
 *
 * <p>On JDK 25+ the bindings live in a {@code java.lang.ScopedValue}; on JDK 21-24 in a
 * {@code ThreadLocal} with the same semantics. No preview API is used.
 */
package dev.weft.context;
