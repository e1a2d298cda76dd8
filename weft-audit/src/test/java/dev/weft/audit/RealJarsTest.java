package dev.weft.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit on real jars that Maven resolves for this test (Clojure, core.async, Jetty), compared
 * with the reviewed findings kept in {@code src/test/resources/dev/weft/audit/real-jars.txt}.
 *
 * <p>core.async ships Clojure sources only, so the test compiles it ahead of time (in a JVM of its
 * own) and audits the classes of {@code clojure.core.async}: the bytecode a JVM runs once it has
 * loaded the library. Each library is audited with what it calls into on the classpath (followed,
 * not reported), as a user would audit their own jar. After a reviewed change in the audit or a version bump, run the test with
 * {@code -Dweft.audit.update=true} to rewrite the file, and review the diff.
 */
class RealJarsTest {

    private static final Path EXPECTED = Path.of("src/test/resources/dev/weft/audit/real-jars.txt");

    @Test
    void findingsOnClojureCoreAsyncAndJettyAreTheReviewedOnes(@TempDir Path dir) throws Exception {
        List<String> lines = new ArrayList<>();
        long bytes = 0;
        long nanos = 0;
        String jettyDeps = String.join(
                File.pathSeparator,
                jar("jetty-util-12.1.14.jar"),
                jar("jetty-io-12.1.14.jar"),
                jar("jetty-http-12.1.14.jar"));
        for (String[] input : new String[][] {
            {"clojure-1.12.6.jar", jar("clojure-1.12.6.jar"), ""},
            {
                "core.async-1.9.865 (compiled ahead of time; clojure on the classpath)",
                coreAsyncClasses(dir),
                jar("clojure-1.12.6.jar")
            },
            {
                "jetty-server-12.1.14.jar (jetty-util, -io, -http on the classpath)",
                jar("jetty-server-12.1.14.jar"),
                jettyDeps
            }
        }) {
            AuditReport r = Auditor.forTargetJdk(21)
                    .audit(List.of(input[1]), input[2].isEmpty() ? List.of() : List.of(input[2]));
            bytes += r.bytes();
            nanos += r.elapsed().toNanos();
            System.out.printf(
                    Locale.ROOT,
                    "weft audit of %s: %,d classes, %.1f MB in %.2f s (%.1f MB/s), %s%n",
                    input[0],
                    r.classes(),
                    r.bytes() / 1e6,
                    r.elapsed().toNanos() / 1e9,
                    r.megabytesPerSecond(),
                    r.counts());
            assertTrue(r.problems().isEmpty(), r.problems().toString());
            lines.add("# " + input[0] + ": " + r.classes() + " classes");
            for (Finding f : r.findings()) {
                lines.add(String.join(
                        " | ",
                        f.severity().toString(),
                        f.rule().id(),
                        f.location(),
                        f.sourcePosition(),
                        String.join(" -> ", f.path())));
            }
        }
        System.out.printf(
                Locale.ROOT,
                "weft audit speed over the three (classpaths included): %.1f MB of classes in %.2f s = %.1f MB/s%n",
                bytes / 1e6,
                nanos / 1e9,
                bytes / 1e6 / (nanos / 1e9));
        if (Boolean.getBoolean("weft.audit.update")) {
            Files.write(EXPECTED, lines, StandardCharsets.UTF_8);
            return;
        }
        List<String> expected = Files.readAllLines(EXPECTED, StandardCharsets.UTF_8);
        List<String> missing = new ArrayList<>(expected);
        missing.removeAll(lines);
        List<String> added = new ArrayList<>(lines);
        added.removeAll(expected);
        assertEquals(
                expected,
                lines,
                "the audit's findings on real jars changed; review them, then rerun with"
                        + " -Dweft.audit.update=true to keep them.\nno longer found:\n  " + String.join("\n  ", missing)
                        + "\nnewly found:\n  " + String.join("\n  ", added));
    }

    /** The path of the jar named {@code name} on this test's classpath (Maven put it there). */
    private static String jar(String name) {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(p -> Path.of(p).getFileName().toString().equals(name))
                .findFirst()
                .orElseThrow(
                        () -> new AssertionError(name + " is not on the test classpath; is it a test dependency?"));
    }

    /** Compiles clojure.core.async into {@code dir} in a JVM of its own; returns the folder of its classes. */
    private static String coreAsyncClasses(Path dir) throws Exception {
        Path out = Files.createDirectories(dir.resolve("aot"));
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path log = dir.resolve("aot.log");
        Process p = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path") + File.pathSeparator + out,
                        "clojure.main",
                        "-e",
                        "(binding [*compile-path* \"" + out.toString().replace("\\", "\\\\")
                                + "\"] (compile 'clojure.core.async))")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("compiling core.async took over 5 minutes; its output:\n" + Files.readString(log));
        }
        assertEquals(0, p.exitValue(), "compiling core.async failed:\n" + Files.readString(log));
        Path classes = out.resolve("clojure/core/async");
        assertTrue(Files.isDirectory(classes), "no classes compiled:\n" + Files.readString(log));
        return classes.toString();
    }
}
