package dev.weft.kotlin

import dev.weft.scope.Joiner
import dev.weft.scope.Scope
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

/**
 * weft-core's Scope as a Kotlin user calls it: Scope.Builder's methods are written in a
 * package-private class it extends (ScopeBuilder), which Kotlin must reach through the public
 * Scope.Builder, at compile time and at run time.
 */
class ScopeFromKotlinTest {
    @Test
    fun theBuilderAndTheJdkNamedJoinersWorkFromKotlin() {
        val all = Joiner.allSuccessfulOrThrow<Int>()
        val builder: Scope.Builder = Scope.builder().name("kotlin").maxConcurrency(2).joiner(all)
        builder.open().use { scope ->
            (1..3).forEach { n -> scope.fork<Int> { n * 10 } }
            assertEquals(listOf(10, 20, 30), scope.join(all))
        }
    }
}
