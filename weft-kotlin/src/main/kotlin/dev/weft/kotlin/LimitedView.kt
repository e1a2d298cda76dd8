package dev.weft.kotlin

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.InternalCoroutinesApi
import kotlin.coroutines.CoroutineContext

/**
 * What [VirtualThreadDispatcher.limitedParallelism] returns: kotlinx's own limited dispatcher over
 * the owner, plus the owner's close semantics. kotlinx's view sends the owner only its worker
 * loops, with no coroutine in their context, so the owner alone could not cancel the coroutines
 * of a view once closed; this wrapper sees each coroutine's context first.
 */
@OptIn(InternalCoroutinesApi::class)
internal class LimitedView(
    private val owner: VirtualThreadDispatcher,
    private val limited: CoroutineDispatcher,
) : CoroutineDispatcher(),
    Delay {

    override fun isDispatchNeeded(context: CoroutineContext): Boolean = limited.isDispatchNeeded(context)

    // kotlinx's view queues blocks and runs them in worker loops with no coroutine in their
    // context, so each block gets its coroutine's WeftContext here, before it is queued.
    override fun dispatch(context: CoroutineContext, block: Runnable) {
        owner.cancelClosed(context)
        limited.dispatch(context, context.withWeftContext(block))
    }

    override fun dispatchYield(context: CoroutineContext, block: Runnable) {
        owner.cancelClosed(context)
        limited.dispatchYield(context, context.withWeftContext(block))
    }

    override fun limitedParallelism(parallelism: Int, name: String?): CoroutineDispatcher {
        val inner = limited.limitedParallelism(parallelism, name)
        return if (inner === limited) this else LimitedView(owner, inner)
    }

    // The owner resumes a view's delays through the view's own dispatch, which keeps the limit.
    override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>) = owner.scheduleResumeAfterDelay(timeMillis, continuation)

    override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle = owner.invokeOnTimeout(timeMillis, block, context)

    override fun toString(): String = limited.toString()
}
