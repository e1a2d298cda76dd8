package dev.weft.kotlin

import kotlinx.coroutines.Dispatchers
import org.jetbrains.annotations.BlockingExecutor

/**
 * The JVM-wide dispatcher on virtual threads, for blocking code in coroutines:
 *
 * ```kotlin
 * val body = withContext(Dispatchers.Virtual) { URI(url).toURL().readText() }
 * ```
 *
 * Always the same object ([VirtualThreadDispatcher.shared]): nested `withContext` on it does not
 * re-dispatch, and it cannot be closed. See [VirtualThreadDispatcher] for the model.
 *
 * Marked [BlockingExecutor]: IntelliJ's "possibly blocking call in non-blocking context"
 * inspection accepts `Thread.sleep`, JDBC and other blocking calls inside
 * `withContext(Dispatchers.Virtual)`, as it does inside `withContext(Dispatchers.IO)`.
 */
public val Dispatchers.Virtual: @BlockingExecutor VirtualThreadDispatcher
    get() = VirtualThreadDispatcher.shared
