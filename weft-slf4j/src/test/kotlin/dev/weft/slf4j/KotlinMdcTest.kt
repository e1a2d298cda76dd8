package dev.weft.slf4j

import dev.weft.context.Context
import dev.weft.context.ContextKey
import dev.weft.kotlin.Virtual
import dev.weft.kotlin.WeftContext
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.slf4j.MDCContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.slf4j.LoggerFactory
import org.slf4j.MDC
import java.nio.file.Files
import java.nio.file.Path
import java.util.UUID

/** weft's MDC mirror in coroutines on weft's dispatcher, alone and with kotlinx's MDCContext (Logback). */
class KotlinMdcTest {

    private val requestId: ContextKey<String> = ContextKey.of("request-id")
    private val log = LoggerFactory.getLogger("weft.slf4j.kotlin")
    private val marker = UUID.randomUUID().toString()
    private lateinit var mirror: AutoCloseable

    @BeforeEach
    fun mirror() {
        mirror = WeftMdc.mirror(mapOf(requestId to "requestId"))
    }

    @AfterEach
    fun unmirror() {
        mirror.close()
        MDC.clear()
    }

    /** This test's log lines as "requestId|user|message". */
    private fun lines(): List<String> = Files.readAllLines(Path.of("target", "logback-mdc.log"))
        .filter { marker in it }
        .map { it.split("|", limit = 4).let { f -> "${f[0]}|${f[1]}|${f[3].removePrefix("$marker ")}" } }

    @Test
    fun `the mirror follows a coroutine that carries WeftContext across resumes`() {
        Context.where(requestId, "r-k").run {
            runBlocking(Dispatchers.Virtual + WeftContext()) {
                delay(5)
                log.info("$marker after a resume")
                (1..5).map { i ->
                    async {
                        delay(5)
                        log.info("$marker child $i")
                        MDC.get("requestId")
                    }
                }.awaitAll()
                    .forEach { assertEquals("r-k", it) }
            }
        }
        val l = lines()
        assertEquals(6, l.size, l.toString())
        assertTrue(l.all { it.startsWith("r-k|") }, l.toString())
    }

    @Test
    fun `MDCContext entries and mirrored keys are both in the lines of a coroutine`() {
        Context.where(requestId, "r-m").run {
            MDC.put("user", "ann") // the application's own entry
            try {
                // Created inside the binding, MDCContext's map holds requestId (mirrored) and user.
                runBlocking(Dispatchers.Virtual + WeftContext() + MDCContext()) {
                    delay(5)
                    log.info("$marker resumed")
                    launch {
                        delay(5)
                        log.info("$marker child")
                    }.join()
                }
                assertEquals("ann", MDC.get("user"), "the caller's MDC is as it was")
                assertEquals("r-m", MDC.get("requestId"))
            } finally {
                MDC.remove("user")
            }
        }
        assertEquals(listOf("r-m|ann|resumed", "r-m|ann|child"), lines())
        assertNull(MDC.get("requestId"))
    }

    @Test
    fun `a reused virtual thread keeps no entry of the coroutine before`() {
        Context.where(requestId, "r-leak").run {
            runBlocking(Dispatchers.Virtual + WeftContext()) {
                (1..20).map { launch { delay(1) } }.forEach { it.join() }
            }
        }
        val seen = runBlocking(Dispatchers.Virtual) {
            (1..20).map {
                async {
                    delay(1)
                    MDC.get("requestId")
                }
            }.awaitAll()
        }
        assertEquals(List(20) { null }, seen)
    }
}
