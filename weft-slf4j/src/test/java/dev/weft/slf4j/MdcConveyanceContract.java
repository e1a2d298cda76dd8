package dev.weft.slf4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.context.Context;
import dev.weft.context.ContextCarrier;
import dev.weft.context.ContextKey;
import dev.weft.scope.Scope;
import dev.weft.thread.WeftThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * What every SLF4J backend must show: the request id a body binds is in the log lines of the
 * body, its forks and its executors' tasks, read back from the file the real backend writes.
 * Lines are {@code requestId|user|thread|message} (see logback-test.xml, log4j2-test.xml).
 */
abstract class MdcConveyanceContract {

    static final ContextKey<String> REQUEST_ID = ContextKey.of("request-id");
    static final ContextKey<Object> USER = ContextKey.of("user");

    private static final Logger LOG = LoggerFactory.getLogger("weft.slf4j.test");

    private final Path logFile;
    private final String loggerFactory;

    /**
     * @param logFile       the file the backend under test writes
     * @param loggerFactory its logger factory's class (both backends are on the test classpath)
     */
    MdcConveyanceContract(Path logFile, String loggerFactory) {
        this.logFile = logFile;
        this.loggerFactory = loggerFactory;
    }

    private ContextCarrier.Registration mirror;
    private String marker;

    @BeforeEach
    void mirror() {
        Map<ContextKey<?>, String> names = new LinkedHashMap<>();
        names.put(REQUEST_ID, "requestId");
        names.put(USER, "user");
        mirror = WeftMdc.mirror(names);
        marker = UUID.randomUUID().toString();
    }

    @AfterEach
    void unmirror() {
        mirror.close();
        MDC.clear();
    }

    private void log(String what) {
        LOG.info("{} {}", marker, what);
    }

    /** This test's lines as [requestId, user, thread, what], in the order written. */
    private List<String[]> lines() throws IOException {
        return Files.readAllLines(logFile).stream()
                .filter(l -> l.contains(marker))
                .map(l -> {
                    String[] f = l.split("\\|", 4);
                    return new String[] {f[0], f[1], f[2], f[3].substring(marker.length() + 1)};
                })
                .toList();
    }

    private String requestIdOf(String what) throws IOException {
        return lines().stream()
                .filter(f -> f[3].equals(what))
                .map(f -> f[0])
                .findFirst()
                .orElseThrow(() -> new AssertionError("no line '" + what + "' in " + logFile));
    }

    @Test
    void theBoundBackendIsTheOneUnderTest() {
        assertEquals(loggerFactory, LoggerFactory.getILoggerFactory().getClass().getName());
    }

    @Test
    void theBodyItsForksAndItsExecutorsLogTheRequestId() throws Exception {
        ExecutorService wrapped = Context.wrap(Executors.newFixedThreadPool(2));
        try (ExecutorService weft = WeftThreads.executor("mdc")) {
            Context.where(REQUEST_ID, "r-1").run(() -> {
                log("body");
                try (Scope scope = Scope.open()) {
                    scope.fork(() -> {
                        log("fork");
                        try (Scope inner = Scope.open()) {
                            inner.fork(() -> {
                                log("fork of a fork");
                                return null;
                            });
                            inner.join();
                        }
                        return null;
                    });
                    scope.join();
                    weft.submit(() -> log("weft executor")).get();
                    wrapped.submit(() -> log("wrapped executor")).get();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            log("after the body");
        } finally {
            wrapped.close();
        }
        for (String what : List.of("body", "fork", "fork of a fork", "weft executor", "wrapped executor")) {
            assertEquals("r-1", requestIdOf(what), what);
        }
        assertEquals("", requestIdOf("after the body"));
        assertTrue(
                lines().stream().anyMatch(f -> f[3].equals("weft executor") && f[2].startsWith("weft-mdc-")),
                "logged from weft's own thread");
    }

    @Test
    void aReusedThreadKeepsNothingAndGetsItsOwnEntriesBack() throws Exception {
        ExecutorService raw = Executors.newSingleThreadExecutor();
        ExecutorService one = Context.wrap(raw);
        try {
            raw.submit(() -> MDC.put("requestId", "the thread's own")).get(); // not through weft
            Context.where(REQUEST_ID, "r-2").run(() -> {
                try {
                    one.submit(() -> log("task with r-2")).get();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            one.submit(() -> log("next task")).get();
            assertEquals(
                    "the thread's own",
                    raw.submit(() -> MDC.get("requestId")).get(),
                    "the thread's entry is back after each task");
        } finally {
            one.close();
        }
        assertEquals("r-2", requestIdOf("task with r-2"));
        assertEquals("", requestIdOf("next task"), "the key is unbound for that task, so is its entry");
    }

    @Test
    void entriesATaskPutsItselfDoNotOutliveItOnAReusedThread() throws Exception {
        ExecutorService one = Context.wrap(Executors.newSingleThreadExecutor());
        try {
            Context.where(REQUEST_ID, "r-3").run(() -> {
                try {
                    one.submit(() -> MDC.put("extra", "from a task with a key")).get();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            assertNull(one.submit(() -> MDC.get("extra")).get());
            one.submit(() -> MDC.put("extra", "from a task with no key")).get();
            assertNull(one.submit(() -> MDC.get("extra")).get());
            assertNull(one.submit(() -> MDC.get("requestId")).get());
        } finally {
            one.close();
        }
    }

    @Test
    void nestedBindingsShowTheInnerValueAndThenTheOuterAgain() throws IOException {
        Context.where(REQUEST_ID, "outer").where(USER, 7).run(() -> {
            Context.where(REQUEST_ID, "inner").run(() -> log("inner"));
            log("outer");
            Context.where(REQUEST_ID, null).run(() -> log("nulled"));
        });
        List<String[]> l = lines();
        assertEquals(
                List.of("inner|7", "outer|7", "|7"),
                l.stream().map(f -> f[0] + "|" + f[1]).toList(),
                "a value is String.valueOf(value); null has no entry");
        assertNull(MDC.get("requestId"));
        assertNull(MDC.get("user"));
    }

    @Test
    void badMirrorsAreRefusedWithTheFix() {
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> WeftMdc.mirror(Map.of()));
        assertTrue(empty.getMessage().contains("at least one key"), empty.getMessage());
        IllegalArgumentException blank =
                assertThrows(IllegalArgumentException.class, () -> WeftMdc.mirror(Map.of(REQUEST_ID, " ")));
        assertTrue(blank.getMessage().contains("blank"), blank.getMessage());
        IllegalArgumentException shared = assertThrows(
                IllegalArgumentException.class, () -> WeftMdc.mirror(ContextKey.of("id"), ContextKey.of("id")));
        assertTrue(shared.getMessage().contains("share the MDC name \"id\""), shared.getMessage());
    }
}
