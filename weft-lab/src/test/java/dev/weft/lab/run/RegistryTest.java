package dev.weft.lab.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.lab.Mode;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegistryTest {

    @TempDir
    Path tmp;

    @Test
    void theLabRegistersTheArticlesScenariosInArticleOrder() {
        Registry lab = Registry.load();
        assertTrue(lab.names().contains("pinning"), lab.names().toString());
        List<String> articles = lab.all().stream().map(Descriptor::article).toList();
        assertEquals(articles.stream().sorted().toList(), articles);
        for (Descriptor d : lab.all()) {
            assertTrue(d.source().contains("https://"), d.name() + " names its article's URL: " + d.source());
            assertTrue(d.run().startsWith("java:") || d.run().startsWith("clojure:"), d.run());
        }
    }

    /**
     * The quick lab's time outside its scenarios (starting their JVMs, the machine probe, writing the
     * reports), kept out of the scenarios' budgets: it measured 4.1-4.3 s on 2 cores (the total
     * `./weft lab` reports less its scenarios' times, three idle runs of 2026-11-27); three times that.
     */
    private static final int RUNNER_SECONDS = 12;

    @Test
    void theQuickLabsBudgetsFitItsFiveMinutes() {
        int total = 0;
        for (Descriptor d : Registry.load().all()) {
            Integer budget = d.budgetSeconds(Mode.QUICK);
            assertTrue(budget != null && budget > 0, d.name() + " gives its quick budget (budget_quick_s)");
            // pinning runs once more on every other JDK found: count it twice (JDK 25 and 21, as on CI)
            total += LabRunner.onOtherJdks(d.name(), dev.weft.lab.Mode.QUICK) ? 2 * budget : budget;
        }
        assertTrue(
                total <= LabRunner.QUICK_LAB_BUDGET_SECONDS - RUNNER_SECONDS,
                "the quick budgets add up to " + total + " s: the quick lab must fit "
                        + LabRunner.QUICK_LAB_BUDGET_SECONDS
                        + " s with the runner's own time (" + RUNNER_SECONDS + " s kept for it)");
    }

    @Test
    void readsDescriptorsFromJarsAsFromFolders() throws IOException {
        Path jar = tmp.resolve("scenarios.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("META-INF/"));
            out.putNextEntry(new JarEntry("META-INF/x/"));
            out.putNextEntry(new JarEntry("META-INF/x/b.properties"));
            out.write(descriptor("b", "002", "java:B").getBytes(StandardCharsets.ISO_8859_1));
            out.putNextEntry(new JarEntry("META-INF/x/a.properties"));
            out.write(descriptor("a", "001", "clojure:a/run").getBytes(StandardCharsets.ISO_8859_1));
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            Registry r = Registry.load("META-INF/x", loader);
            assertEquals(List.of("a", "b"), r.names());
            assertEquals("META-INF/x/", r.folder());
            Descriptor a = r.all().getFirst();
            assertEquals(List.of("-Xss1m", "-Dk=v"), a.jvmArgs());
            assertEquals(7, a.timeoutSeconds(Mode.QUICK));
            assertEquals(120, a.timeoutSeconds(Mode.SMOKE));
        }
    }

    @Test
    void selectingAnUnknownScenarioNamesItAndTheKnownOnes() {
        var e = assertThrows(
                IllegalArgumentException.class, () -> Registry.load().select(List.of("pinning", "nope")));
        assertTrue(e.getMessage().startsWith("unknown scenario nope; known: "), e.getMessage());
        assertTrue(e.getMessage().contains("pinning"), e.getMessage());
    }

    @Test
    void anIncompleteDescriptorSaysWhichKeyIsMissing() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("META-INF/y"));
        Files.writeString(dir.resolve("bad.properties"), "name=bad\narticle=001\ntitle=t\nsource=s\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {tmp.toUri().toURL()}, null)) {
            var e = assertThrows(IllegalArgumentException.class, () -> Registry.load("META-INF/y/", loader));
            assertTrue(e.getMessage().endsWith("bad.properties: missing \"run\""), e.getMessage());
        }
    }

    @Test
    void twoDescriptorsWithOneNameAreRejected() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("META-INF/z"));
        Files.writeString(dir.resolve("one.properties"), descriptor("same", "001", "java:A"));
        Files.writeString(dir.resolve("two.properties"), descriptor("same", "002", "java:B"));
        try (URLClassLoader loader = new URLClassLoader(new URL[] {tmp.toUri().toURL()}, null)) {
            var e = assertThrows(IllegalArgumentException.class, () -> Registry.load("META-INF/z/", loader));
            assertEquals("two scenario descriptors are named same", e.getMessage());
        }
    }

    private static String descriptor(String name, String article, String run) {
        return "name=" + name + "\narticle=" + article + "\ntitle=T\nsource=S https://example.invalid\nrun=" + run
                + "\njvm_args=-Xss1m -Dk=v\ntimeout_quick_s=7\n";
    }
}
