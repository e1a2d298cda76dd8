package dev.weft.kotlin

import dev.weft.context.Context
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext

/**
 * The weft context keys ([dev.weft.context.ContextKey]) a coroutine carries: a coroutine context
 * element holding a [Context.Snapshot], by default the keys bound where it is created.
 *
 * A coroutine with this element runs every part of its body (its start and each resume after a
 * suspension) with exactly these bindings in effect when a weft dispatcher runs it, so blocking
 * code inside reads the keys with `key.get()` as it would in a weft scope, `vfuture` or executor.
 * Child coroutines inherit the element, as they inherit any context element.
 *
 * ```kotlin
 * val USER: ContextKey<String> = ContextKey.of("user")
 *
 * Context.where(USER, "ann").run {
 *     runBlocking(Dispatchers.Virtual + WeftContext()) {   // captures USER = "ann"
 *         delay(10)
 *         check(USER.get() == "ann")                       // after a resume, on another thread
 *         launch { check(USER.get() == "ann") }            // children inherit it
 *     }
 * }
 * ```
 *
 * **Where it applies.** weft's dispatchers ([Dispatchers.Virtual], every
 * [VirtualThreadDispatcher] and their `limitedParallelism` views) bind the snapshot around each
 * part they run, in O(1) whatever the number of keys, and the bindings end with that part: a
 * reused thread keeps nothing. Other dispatchers ignore the element; around blocking code there,
 * bind the keys yourself with `snapshot.call { ... }`. A ThreadContextElement cannot do this job:
 * on JDK 25 the keys live in a `java.lang.ScopedValue`, which can only be bound around a call,
 * never set and restored on a thread.
 *
 * **In-place starts.** A part that kotlinx runs in place, without a dispatch, keeps the bindings
 * of the thread it runs on: `withContext(WeftContext(...))` on the dispatcher the coroutine is
 * already on runs its first part in place, and so does `launch(start = UNDISPATCHED)`. Their
 * later parts, after the first suspension, have the new bindings; call `yield()` first when the
 * first part needs them.
 *
 * From Java: `new WeftContext()` captures the keys bound now; `new WeftContext(snapshot)`
 * carries a snapshot taken earlier.
 *
 * @property snapshot the keys and values this coroutine carries
 */
public class WeftContext @JvmOverloads constructor(
    public val snapshot: Context.Snapshot = Context.capture(),
) : AbstractCoroutineContextElement(WeftContext) {

    /** The key of [WeftContext] in a coroutine context. */
    public companion object Key : CoroutineContext.Key<WeftContext>

    override fun toString(): String = "WeftContext($snapshot)"
}

/** [block], wrapped to run with the keys of this context's [WeftContext], if it has one. */
internal fun CoroutineContext.withWeftContext(block: Runnable): Runnable = this[WeftContext]?.snapshot?.wrap(block) ?: block
