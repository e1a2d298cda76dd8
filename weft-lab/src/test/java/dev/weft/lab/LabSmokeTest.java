package dev.weft.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.lab.run.LabRunner;
import dev.weft.lab.run.Registry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every registered lab scenario once at its smoke size, through the real runner (its own
 * JVM), and checks the shape of what it wrote: the contract other tools read. Speed is not
 * checked here; the lab measures it.
 */
class LabSmokeTest {

    /** The variant names each issue fixed, so that tools can read them. */
    private static final Map<String, Set<String>> VARIANTS = Map.of(
            "pinning",
                    Set.of(
                            "no-lock",
                            "reentrant-lock",
                            "synchronized",
                            "class-init",
                            "class-init@2-carriers",
                            "class-init@8-carriers"),
            "context",
                    Set.of(
                            "dynamic-var",
                            "dynamic-var-1-binding",
                            "scoped-value",
                            "explicit-arg",
                            "weft-context",
                            "weft-context-mdc"),
            "coroutines",
                    Set.of(
                            "dispatchers-io",
                            "dispatchers-io-5000",
                            "naive-loom",
                            "weft",
                            "raw-virtual",
                            "weft-executor",
                            // --full and smoke only: kotlinx on the cheapest dispatcher (decision 0870)
                            "kotlinx-floor"),
            "http",
                    Set.of(
                            "jetty-50-threads@120",
                            "jetty-4-threads@120",
                            "weft-ring@120",
                            "jetty-virtual@120",
                            "weft-ring@1000",
                            "jetty-virtual@1000",
                            "weft-ring-nosleep@120",
                            "jetty-virtual-nosleep@120",
                            "weft-ring-h2c@120",
                            "weft-ring-ws",
                            "jetty-virtual-ws",
                            // issue 25's candidate cores: full mode, and smoke, which runs every variant
                            "helidon-virtual-nosleep@120",
                            "netty-virtual-nosleep@120",
                            // issue 25's prototype: the lab's Ring handler on Helidon (decision 0880)
                            "weft-ring-helidon-nosleep@120",
                            "helidon-virtual-ws",
                            // and weft-ring's WebSocket socket on Helidon
                            "weft-ring-helidon-ws"),
            "switch", Set.of("virtual-handoff", "platform-handoff", "virtual-yield"),
            "overload",
                    Set.of(
                            "jetty-hikaricp@1x",
                            "jetty-hikaricp@2x",
                            "jetty-hikaricp@4x",
                            "weft-ring-unbounded@1x",
                            "weft-ring-unbounded@2x",
                            "weft-ring-unbounded@4x",
                            "weft-ring-admission@1x",
                            "weft-ring-admission@2x",
                            "weft-ring-admission@4x"),
            "fanout",
                    Set.of(
                            "core-async-go",
                            "core-async-thread",
                            "core-async-pipeline-blocking",
                            "virtual-threads",
                            "weft-process",
                            "weft-pipeline",
                            "core-async-go+weft",
                            "core-async-thread+weft",
                            "core-async-pipeline-blocking+weft"));

    @TempDir
    Path out;

    static Stream<String> scenarios() {
        return Registry.load().names().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void runsAndReportsTheContractShape(String name) throws Exception {
        StringWriter console = new StringWriter();
        int exit = new LabRunner(new PrintWriter(console, true))
                .run(new LabRunner.Options(Mode.SMOKE, List.of(name), out));
        assertEquals(0, exit, console.toString());

        ResultsSchema.assertValid(out.resolve("results.json"));
        JsonNode lab = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertTrue(
                lab.get("jdk")
                        .asText()
                        .contains(String.valueOf(Runtime.version().feature())),
                lab.toString());
        assertTrue(lab.get("cores").asInt() > 0);
        assertEquals("smoke", lab.get("mode").asText());
        JsonNode s = lab.get("scenarios").get(0);
        assertEquals(name, s.get("name").asText());
        assertEquals("ok", s.get("status").asText(), s.toString());
        for (String key : List.of("title", "source", "limit_note")) {
            assertTrue(s.hasNonNull(key) && !s.get(key).asText().isBlank(), name + " has no " + key);
        }
        assertTrue(s.get("source").asText().contains("https://"), "source names the article's URL");

        List<String> names = new ArrayList<>();
        for (JsonNode v : s.get("variants")) {
            String variant = name + "/" + v.get("name").asText();
            names.add(v.get("name").asText());
            for (String key : List.of(
                    "name",
                    "unit",
                    "value",
                    "limit",
                    "ratio",
                    "published",
                    "published_range",
                    "better",
                    "kind",
                    "limit_label",
                    "rounds",
                    "peak_platform_threads",
                    "previous",
                    "memory",
                    "extra")) {
                assertTrue(v.has(key), variant + " lacks " + key);
            }
            assertTrue(Double.isFinite(v.get("value").asDouble()), variant);
            if (!v.get("limit").isNull()) {
                assertEquals(
                        v.get("value").asDouble() / v.get("limit").asDouble(),
                        v.get("ratio").asDouble(),
                        1e-9,
                        variant);
            } else {
                assertTrue(v.get("ratio").isNull(), variant + ": a ratio needs a limit");
            }
            assertTrue(v.get("extra").isObject(), variant);
            if (name.equals("http") && v.get("extra").path("connections").isNumber()) {
                // every HTTP/1.1 variant: the server JVM's allocation per request (when its short smoke
                // window completed a request at all, which a loaded machine may not) and its memory
                assertTrue(v.get("extra").has("alloc_bytes_per_request"), variant + ": " + v.get("extra"));
                if (v.get("extra").path("requests").asLong() > 0) {
                    assertTrue(
                            v.get("extra").get("alloc_bytes_per_request").asDouble() > 0,
                            variant + ": " + v.get("extra"));
                }
                assertTrue(v.get("memory").get("peak_heap_bytes").asLong() > 0, variant + ": " + v.get("memory"));
            }
            if (name.equals("http") && v.get("name").asText().matches("(helidon|netty)-virtual-nosleep@120")) {
                // a candidate core: its ratios to plain Jetty from the paired rounds of its own
                JsonNode vs = v.get("extra").path("vs_jetty");
                assertEquals("jetty-virtual-nosleep@120", vs.path("variant").asText(), variant + ": " + vs);
                assertTrue(vs.path("rounds").asInt() >= 1, variant + ": " + vs);
            }
        }
        assertTrue(!names.isEmpty(), name + " reported no variant");
        Set<String> expected = VARIANTS.get(name);
        if (expected != null && name.equals("context") && Runtime.version().feature() < 25) {
            // java.lang.ScopedValue is final from JDK 25; the scenario leaves that variant out before
            expected = expected.stream()
                    .filter(v -> !v.equals("scoped-value"))
                    .collect(java.util.stream.Collectors.toSet());
        }
        if (expected != null
                && name.equals("http")
                && java.util.Arrays.stream(
                                System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                        .noneMatch(d -> java.nio.file.Files.isExecutable(Path.of(d, "h2load")))) {
            // without h2load (./weft test installs it) the scenario notes that its h2c variant did not run
            expected = expected.stream()
                    .filter(v -> !v.equals("weft-ring-h2c@120"))
                    .collect(java.util.stream.Collectors.toSet());
        }
        if (expected != null) {
            assertEquals(expected, Set.copyOf(names));
            assertEquals(expected.size(), names.size(), "each variant once: " + names);
        }
        for (JsonNode g : s.get("goals")) {
            assertEquals("not_judged", g.get("verdict").asText(), "a smoke run judges no goal: " + g);
        }
        assertTrue(console.toString().contains("verdict: "), "the console ends with the verdict: " + console);
        assertTrue(Files.readString(out.resolve("report.md")).contains("## " + name + ": "));
        assertTrue(Files.readString(out.resolve("report.html")).contains("<svg"));
    }
}
