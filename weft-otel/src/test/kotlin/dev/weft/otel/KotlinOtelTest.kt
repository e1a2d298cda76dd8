package dev.weft.otel

import dev.weft.context.ContextCarrier
import dev.weft.kotlin.Virtual
import dev.weft.kotlin.VirtualThreadDispatcher
import dev.weft.kotlin.WeftContext
import io.opentelemetry.api.trace.Span
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test

/** Spans across resumes on weft's coroutine dispatchers. */
class KotlinOtelTest {

    private lateinit var otel: ContextCarrier.Registration

    @BeforeEach
    fun install() {
        otel = WeftOtel.install()
        OtelConveyanceTest.EXPORTER.reset()
    }

    @AfterEach
    fun uninstall() = otel.close()

    @Test
    fun `spans started after a resume on weft's dispatcher are children of the span current at launch`() {
        val request = OtelConveyanceTest.TRACER.spanBuilder("request").startSpan()
        request.makeCurrent().use {
            runBlocking(Dispatchers.Virtual + WeftContext()) {
                delay(5)
                OtelConveyanceTest.span("after a resume")
                (1..3).map { i ->
                    async {
                        delay(5)
                        OtelConveyanceTest.span("child $i")
                    }
                }.awaitAll()
                VirtualThreadDispatcher("otel").use { own ->
                    withContext(own) {
                        delay(5)
                        OtelConveyanceTest.span("own dispatcher")
                    }
                }
            }
        }
        request.end()
        val spans = OtelConveyanceTest.finished()
        for (name in listOf("after a resume", "child 1", "child 2", "child 3", "own dispatcher")) {
            OtelConveyanceTest.assertChildOf(spans, "request", name)
        }
        val leftover = runBlocking(Dispatchers.Virtual) {
            (1..20).map {
                async {
                    delay(1)
                    Span.current().spanContext.isValid
                }
            }.awaitAll()
        }
        assertEquals(List(20) { false }, leftover, "no span stays current on reused virtual threads")
        assertFalse(Span.current().spanContext.isValid)
    }
}
