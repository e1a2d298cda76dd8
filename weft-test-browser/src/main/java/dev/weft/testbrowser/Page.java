package dev.weft.testbrowser;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One tab of a {@link Chromium}: open a URL, evaluate JavaScript, read what went wrong on the
 * console, take a screenshot. Everything the page reports as an error (a {@code console.error},
 * an uncaught exception, a rejected promise nobody handled, a resource that failed to load) is
 * collected from the moment the tab opens.
 */
public final class Page implements AutoCloseable {

    /** How long {@link #open(String)} waits for the page's load event. */
    public static final Duration LOAD_TIMEOUT = Duration.ofSeconds(60);

    private final Cdp cdp;
    private final List<String> errors = new ArrayList<>();
    private volatile CompletableFuture<Void> loaded = new CompletableFuture<>();

    Page(Cdp cdp) {
        this.cdp = cdp;
        cdp.on("Runtime.consoleAPICalled", p -> {
            String type = p.path("type").asText();
            if (type.equals("error") || type.equals("assert")) {
                List<String> args = new ArrayList<>();
                p.path("args")
                        .forEach(a -> args.add(
                                a.has("value")
                                        ? a.get("value").asText()
                                        : a.path("description").asText()));
                error("console." + type + ": " + String.join(" ", args));
            }
        });
        cdp.on("Runtime.exceptionThrown", p -> {
            JsonNode d = p.path("exceptionDetails");
            error("uncaught: "
                    + (d.path("exception").has("description")
                            ? d.path("exception").get("description").asText()
                            : d.path("text").asText()));
        });
        cdp.on("Log.entryAdded", p -> {
            JsonNode e = p.path("entry");
            if (e.path("level").asText().equals("error")) {
                error(e.path("source").asText() + ": " + e.path("text").asText()
                        + (e.has("url") ? " (" + e.get("url").asText() + ")" : ""));
            }
        });
        cdp.on("Page.loadEventFired", p -> loaded.complete(null));
        cdp.send("Page.enable", Map.of());
        cdp.send("Runtime.enable", Map.of());
        cdp.send("Log.enable", Map.of());
    }

    private synchronized void error(String line) {
        errors.add(line);
    }

    /**
     * Navigates to {@code url} and waits for its load event.
     *
     * @throws DevToolsException when the navigation fails (e.g. a file that does not exist) or
     *                           the page does not load within {@link #LOAD_TIMEOUT}
     */
    public Page open(String url) {
        CompletableFuture<Void> load = new CompletableFuture<>();
        loaded = load;
        JsonNode r = cdp.send("Page.navigate", Map.of("url", url));
        if (r.hasNonNull("errorText") && !r.get("errorText").asText().isEmpty()) {
            throw new DevToolsException(
                    "cannot open " + url + ": " + r.get("errorText").asText(), null);
        }
        try {
            load.get(LOAD_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DevToolsException("interrupted while " + url + " loaded", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new DevToolsException(url + " did not finish loading within " + LOAD_TIMEOUT.toSeconds() + " s", e);
        }
        return this;
    }

    /**
     * Evaluates {@code expression} in the page, waits for it if it returns a promise, and returns
     * its value as JSON maps, lists, strings, numbers, booleans or null ({@code undefined} is null).
     *
     * @throws JavaScriptException when it throws or its promise rejects, with the page's description
     */
    public Object evaluate(String expression) {
        JsonNode r = cdp.send(
                "Runtime.evaluate", Map.of("expression", expression, "awaitPromise", true, "returnByValue", true));
        if (r.has("exceptionDetails")) {
            JsonNode d = r.get("exceptionDetails");
            String what = d.path("exception").has("description")
                    ? d.path("exception").get("description").asText()
                    : d.path("exception").has("value")
                            ? d.path("exception").get("value").toString()
                            : d.path("text").asText();
            throw new JavaScriptException(expression + " threw: " + what);
        }
        JsonNode value = r.path("result").path("value");
        return value.isMissingNode() ? null : Cdp.MAPPER.convertValue(value, Object.class);
    }

    /** Every error the page reported since it opened: console errors, uncaught exceptions, failed loads. */
    public synchronized List<String> consoleErrors() {
        return List.copyOf(errors);
    }

    /**
     * Writes a PNG of the whole page (not only the viewport) to {@code file}, creating its folder.
     *
     * @return {@code file}
     */
    public Path screenshot(Path file) throws IOException {
        JsonNode size = cdp.send("Page.getLayoutMetrics", Map.of()).path("cssContentSize");
        double width = Math.max(1, Math.ceil(size.path("width").asDouble()));
        double height = Math.max(1, Math.ceil(size.path("height").asDouble()));
        JsonNode shot = cdp.send(
                "Page.captureScreenshot",
                Map.of(
                        "format",
                        "png",
                        "captureBeyondViewport",
                        true,
                        "clip",
                        Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
        if (file.toAbsolutePath().getParent() != null) {
            Files.createDirectories(file.toAbsolutePath().getParent());
        }
        Files.write(file, Base64.getDecoder().decode(shot.path("data").asText()));
        return file;
    }

    /** Sets the viewport's size in CSS pixels (the default is Chromium's headless 800 x 600). */
    public Page viewport(int width, int height) {
        cdp.send(
                "Emulation.setDeviceMetricsOverride",
                Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", false));
        return this;
    }

    /** Closes the connection to this tab; the browser's {@link Chromium#close()} ends the tab itself. */
    @Override
    public void close() {
        cdp.close();
    }
}
