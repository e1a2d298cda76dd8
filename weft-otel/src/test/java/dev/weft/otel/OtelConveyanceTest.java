package dev.weft.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.context.ContextCarrier;
import dev.weft.scope.Scope;
import dev.weft.scope.Subtask;
import dev.weft.thread.WeftThreads;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Spans and baggage across weft's forks and executors, with the real SDK and an in-memory exporter. */
class OtelConveyanceTest {

    static final InMemorySpanExporter EXPORTER = InMemorySpanExporter.create();
    static final Tracer TRACER = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(EXPORTER))
            .build()
            .get("weft-otel-test");

    private ContextCarrier.Registration otel;

    @BeforeEach
    void install() {
        otel = WeftOtel.install();
        EXPORTER.reset();
    }

    @AfterEach
    void uninstall() {
        otel.close();
    }

    /** Starts and ends a span named {@code name} in the current context. */
    static Void span(String name) {
        TRACER.spanBuilder(name).startSpan().end();
        return null;
    }

    static Map<String, SpanData> finished() {
        return EXPORTER.getFinishedSpanItems().stream()
                .collect(Collectors.toMap(SpanData::getName, Function.identity()));
    }

    static void assertChildOf(Map<String, SpanData> spans, String parent, String child) {
        SpanData p = spans.get(parent);
        SpanData c = spans.get(child);
        assertTrue(p != null && c != null, "both spans ended: " + spans.keySet());
        assertEquals(p.getSpanId(), c.getParentSpanId(), child + " is a child of " + parent);
        assertEquals(p.getTraceId(), c.getTraceId(), child + " is in the trace of " + parent);
    }

    @Test
    void aSpanStartedInAParentIsTheParentOfSpansStartedInItsForksAndTasks() throws Exception {
        ExecutorService wrapped = dev.weft.context.Context.wrap(Executors.newFixedThreadPool(2));
        Span request = TRACER.spanBuilder("request").startSpan();
        try (var ignored = request.makeCurrent();
                ExecutorService weft = WeftThreads.executor("otel")) {
            try (Scope scope = Scope.open()) {
                scope.fork(() -> {
                    Span fork = TRACER.spanBuilder("fork").startSpan();
                    try (var inFork = fork.makeCurrent();
                            Scope inner = Scope.open()) {
                        inner.fork(() -> span("fork of a fork"));
                        inner.join();
                    } finally {
                        fork.end();
                    }
                    return null;
                });
                scope.join();
            }
            weft.submit(() -> span("weft executor")).get();
            wrapped.submit(() -> span("wrapped executor")).get();
        } finally {
            request.end();
            wrapped.close();
        }
        Map<String, SpanData> spans = finished();
        assertEquals(5, spans.size(), spans.keySet().toString());
        assertChildOf(spans, "request", "fork");
        assertChildOf(spans, "fork", "fork of a fork");
        assertChildOf(spans, "request", "weft executor");
        assertChildOf(spans, "request", "wrapped executor");
        assertFalse(spans.get("request").getParentSpanContext().isValid(), "request is a root span");
    }

    @Test
    void baggageTravelsToForks() throws Exception {
        try (var ignored = Baggage.builder().put("tenant", "acme").build().makeCurrent();
                Scope scope = Scope.open()) {
            Subtask<String> tenant = scope.fork(() -> Baggage.current().getEntryValue("tenant"));
            scope.join();
            assertEquals("acme", tenant.get());
        }
    }

    @Test
    void noSpanIsLeftCurrentOnAReusedThread() throws Exception {
        ExecutorService one = dev.weft.context.Context.wrap(Executors.newSingleThreadExecutor());
        try {
            Span request = TRACER.spanBuilder("request").startSpan();
            try (var ignored = request.makeCurrent()) {
                assertEquals(
                        request.getSpanContext(),
                        one.submit(() -> Span.current().getSpanContext()).get());
            } finally {
                request.end();
            }
            assertFalse(
                    one.submit(() -> Span.current().getSpanContext().isValid()).get(),
                    "no span current after the task");
            assertSame(Context.root(), one.submit(Context::current).get());
        } finally {
            one.close();
        }
    }

    @Test
    void withoutInstallASpanStopsAtTheFork() throws Exception {
        otel.close();
        Span request = TRACER.spanBuilder("request").startSpan();
        try (var ignored = request.makeCurrent();
                Scope scope = Scope.open()) {
            Subtask<Boolean> valid =
                    scope.fork(() -> Span.current().getSpanContext().isValid());
            scope.join();
            assertFalse(valid.get(), "OpenTelemetry's thread-local context alone does not reach a new thread");
        } finally {
            request.end();
        }
    }

    @Test
    void installingTwiceReturnsTheSameRegistration() {
        assertSame(otel, WeftOtel.install());
        assertTrue(WeftOtel.isInstalled());
    }
}
