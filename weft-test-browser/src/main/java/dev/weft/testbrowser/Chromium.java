package dev.weft.testbrowser;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A headless Chromium started for a test, driven over the Chrome DevTools protocol.
 *
 * <p>{@link #start()} launches Debian's {@code chromium} (or the binary named by the
 * {@code WEFT_CHROMIUM} environment variable) with a fresh profile in a temporary folder and
 * {@code --remote-debugging-port=0}; {@link #newPage()} opens a tab. {@link #close()} ends the
 * browser and every process it started, by PID, and deletes its profile; a JVM shutdown hook does
 * the same if a test never gets to close it, so no browser outlives the test run.
 *
 * <pre>{@code
 * try (Chromium chromium = Chromium.start(); Page page = chromium.newPage()) {
 *     page.open("file:///tmp/report.html");
 *     Object title = page.evaluate("document.title");
 *     page.screenshot(Path.of("target/report.png"));
 *     assertEquals(List.of(), page.consoleErrors());
 * }
 * }</pre>
 *
 * <p>Instances are safe to use from one thread at a time.
 */
public final class Chromium implements AutoCloseable {

    /** How long to wait for the browser to listen for DevTools clients. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://[^\\s]+)");

    private final Process process;
    private final Path profile;
    private final URI http;
    private final HttpClient client;
    private final List<Page> pages = new ArrayList<>();
    private final Thread shutdownHook;
    private boolean closed;

    private Chromium(Process process, Path profile, URI http) {
        this.process = process;
        this.profile = profile;
        this.http = http;
        this.client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        this.shutdownHook = new Thread(this::kill, "weft-chromium-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts a headless Chromium.
     *
     * @throws IllegalStateException when no Chromium is installed (saying how to install one),
     *                               or it did not start listening within 60 s (with its output)
     */
    public static Chromium start() throws IOException {
        String binary = binary().orElseThrow(() ->
                new IllegalStateException("no Chromium found: install Debian's package with `apt-get install chromium`"
                        + " (build/test/browser.sh does), or set WEFT_CHROMIUM to a Chromium binary"));
        Path profile = Files.createTempDirectory("weft-chromium-");
        List<String> command = List.of(
                binary,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--hide-scrollbars",
                "--mute-audio",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--user-data-dir=" + profile,
                "about:blank");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> ws = new CompletableFuture<>();
        StringBuilder output = new StringBuilder();
        Thread.ofPlatform().daemon(true).name("weft-chromium-output").start(() -> {
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    synchronized (output) {
                        if (output.length() < 20_000) {
                            output.append(line).append('\n');
                        }
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        ws.complete(m.group(1));
                    }
                }
            } catch (IOException e) {
                ws.completeExceptionally(e);
            }
            ws.completeExceptionally(new IllegalStateException("Chromium exited before it listened"));
        });
        try {
            URI browserWs = URI.create(ws.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            return new Chromium(p, profile, URI.create("http://" + browserWs.getHost() + ":" + browserWs.getPort()));
        } catch (Exception e) {
            stopTree(p);
            deleteQuietly(profile);
            String out;
            synchronized (output) {
                out = output.toString();
            }
            throw new IllegalStateException(
                    "Chromium (" + binary + ") did not listen for DevTools within " + START_TIMEOUT.toSeconds() + " s: "
                            + e + "\nits output:\n" + out,
                    e);
        }
    }

    /** The Chromium binary to run: {@code WEFT_CHROMIUM}, else the first of chromium, chromium-browser on PATH. */
    public static Optional<String> binary() {
        String configured = System.getenv("WEFT_CHROMIUM");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(configured);
        }
        String path = System.getenv().getOrDefault("PATH", "");
        for (String name : List.of("chromium", "chromium-browser")) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate.toString());
                }
            }
        }
        return Optional.empty();
    }

    /** True when a Chromium binary is available to {@link #start()}. */
    public static boolean available() {
        return binary().isPresent();
    }

    /** The browser's PID. */
    public long pid() {
        return process.pid();
    }

    /**
     * Opens a new tab on {@code about:blank} and connects to it.
     *
     * @throws IllegalStateException when the browser is closed or refuses
     */
    public synchronized Page newPage() throws IOException {
        if (closed) {
            throw new IllegalStateException("this Chromium is closed; start another");
        }
        HttpRequest req = HttpRequest.newBuilder(http.resolve("/json/new?about:blank"))
                .PUT(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(30))
                .build();
        try {
            HttpResponse<String> res = client.send(req, HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() != 200) {
                throw new IllegalStateException(
                        "Chromium refused a new tab: HTTP " + res.statusCode() + " " + res.body());
            }
            String wsUrl =
                    Cdp.MAPPER.readTree(res.body()).path("webSocketDebuggerUrl").asText();
            Page page = new Page(Cdp.connect(client, URI.create(wsUrl)));
            pages.add(page);
            return page;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while opening a tab", e);
        }
    }

    /** Closes every page, ends the browser and its child processes by PID, and deletes its profile. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Page p : pages) {
            p.close();
        }
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it does the same
        }
    }

    private void kill() {
        stopTree(process);
        deleteQuietly(profile);
    }

    /**
     * Ends {@code p} and its descendants: politely, then, for any still alive after 5 s,
     * forcibly; returns once every one of them has ended (or 10 s have passed).
     */
    static void stopTree(Process p) {
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.add(p.toHandle());
        all.forEach(ProcessHandle::destroy);
        if (!awaitEnd(all, 5)) {
            all.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
            awaitEnd(all, 5);
        }
    }

    private static boolean awaitEnd(List<ProcessHandle> processes, int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (ProcessHandle h : processes) {
            try {
                h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException | TimeoutException e) {
                return false;
            }
        }
        return true;
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException e) {
                    // Chromium may still be writing as it dies; the temp folder is the system's to clean
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // nothing left to delete, or the system's temp cleaner will
        }
    }
}
