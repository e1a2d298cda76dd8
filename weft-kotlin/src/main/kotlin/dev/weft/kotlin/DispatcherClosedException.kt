package dev.weft.kotlin

import kotlinx.coroutines.CancellationException

/**
 * The cause a coroutine is cancelled with when it is started or resumed on a
 * [VirtualThreadDispatcher] that was already [closed][VirtualThreadDispatcher.close].
 *
 * It is a [CancellationException], so the coroutine unwinds like any cancelled one: its `finally`
 * blocks run (on a virtual thread of the closed dispatcher, never on another dispatcher) and
 * `await()`/`join()` callers see it. The message names the dispatcher and the fix.
 */
public class DispatcherClosedException(message: String) : CancellationException(message)
