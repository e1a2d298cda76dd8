package dev.weft.testbrowser;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness against a real headless Chromium (the browser tier: build/test/browser.sh). */
@Tag("browser")
class ChromiumTest {

    @TempDir
    Path dir;

    @Test
    void opensEvaluatesCollectsErrorsScreenshotsAndEndsTheBrowser() throws Exception {
        Path html = dir.resolve("page.html");
        Files.writeString(html, """
                <!DOCTYPE html><html><head><title>harness</title></head><body>
                <h1 id="h">hello</h1>
                <script>
                console.error("something", "broke");
                console.log("not an error");
                setTimeout(() => { throw new Error("late failure"); }, 0);
                </script></body></html>
                """);
        long pid;
        List<ProcessHandle> children;
        try (Chromium chromium = Chromium.start();
                Page page = chromium.newPage()) {
            pid = chromium.pid();
            children = ProcessHandle.of(pid).orElseThrow().descendants().toList();
            page.viewport(640, 400).open(html.toUri().toString());
            assertEquals("harness", page.evaluate("document.title"));
            assertEquals(42, page.evaluate("new Promise(r => setTimeout(() => r(42), 10))"), "promises are awaited");
            assertEquals(Map.of("a", List.of(1, 2)), page.evaluate("({a: [1, 2]})"));
            assertEquals(null, page.evaluate("undefined"));
            JavaScriptException e =
                    assertThrows(JavaScriptException.class, () -> page.evaluate("Promise.reject(new Error('nope'))"));
            assertTrue(e.getMessage().contains("nope"), e.getMessage());
            page.evaluate("new Promise(r => setTimeout(r, 50))");
            List<String> errors = page.consoleErrors();
            assertTrue(errors.contains("console.error: something broke"), errors.toString());
            assertTrue(errors.stream().anyMatch(x -> x.contains("late failure")), errors.toString());
            assertFalse(errors.stream().anyMatch(x -> x.contains("not an error")), errors.toString());

            Path png = page.screenshot(dir.resolve("shots/page.png"));
            byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
            assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head, "a PNG");

            assertThrows(
                    DevToolsException.class,
                    () -> page.open(dir.resolve("missing.html").toUri().toString()),
                    "a page that cannot load is an error, not a blank success");
        }
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the browser ended");
        assertTrue(children.stream().noneMatch(ProcessHandle::isAlive), "and every process it started");
    }
}
