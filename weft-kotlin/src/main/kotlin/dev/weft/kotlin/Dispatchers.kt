package dev.weft.kotlin

import kotlinx.coroutines.Dispatchers

/**
 * The JVM-wide dispatcher on virtual threads, for blocking code in coroutines:
 *
 * ```kotlin
 * val body = withContext(Dispatchers.Virtual) { URI(url).toURL().readText() }
 * ```
 *
 * Always the same object ([VirtualThreadDispatcher.shared]): nested `withContext` on it does not
 * re-dispatch, and it cannot be closed. See [VirtualThreadDispatcher] for the model.
 */
public val Dispatchers.Virtual: VirtualThreadDispatcher
    get() = VirtualThreadDispatcher.shared
