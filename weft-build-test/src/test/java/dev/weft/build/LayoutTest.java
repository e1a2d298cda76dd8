package dev.weft.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The repository's module layout, as users see it through Maven: weft-bom pins exactly the library
 * modules, every library POM carries the metadata a repository needs, and weft-clj does not drag
 * core.async along. (What Maven itself enforces, such as each module's weft.module.name, is not
 * repeated here.)
 */
class LayoutTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static Element pom(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(file.toFile())
                .getDocumentElement();
    }

    /** The direct children of {@code e} named {@code name}. */
    private static List<Element> children(Element e, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) {
                out.add(c);
            }
        }
        return out;
    }

    private static Element child(Element e, String... path) {
        Element at = e;
        for (String name : path) {
            List<Element> c = at == null ? List.of() : children(at, name);
            at = c.isEmpty() ? null : c.get(0);
        }
        return at;
    }

    private static String text(Element e, String... path) {
        Element c = child(e, path);
        return c == null ? null : c.getTextContent().strip();
    }

    private static List<String> modules() throws Exception {
        return children(child(pom(ROOT.resolve("pom.xml")), "modules"), "module").stream()
                .map(m -> m.getTextContent().strip())
                .toList();
    }

    /** Reactor modules with sources that do not declare themselves internal (lab, bench, test harnesses). */
    private static Set<String> libraryModules() throws Exception {
        Set<String> libs = new TreeSet<>();
        for (String m : modules()) {
            if (Files.isDirectory(ROOT.resolve(m).resolve("src/main"))
                    && !"true".equals(text(pom(ROOT.resolve(m).resolve("pom.xml")), "properties", "weft.internal"))) {
                libs.add(m);
            }
        }
        return libs;
    }

    @Test
    void theBomPinsExactlyTheLibraryModulesAtWeftsVersion() throws Exception {
        Element bom = pom(ROOT.resolve("weft-bom/pom.xml"));
        Set<String> pinned = new TreeSet<>();
        for (Element d : children(child(bom, "dependencyManagement", "dependencies"), "dependency")) {
            assertEquals("dev.weft", text(d, "groupId"));
            assertEquals("${project.version}", text(d, "version"), text(d, "artifactId"));
            pinned.add(text(d, "artifactId"));
        }
        assertEquals(
                libraryModules(),
                pinned,
                "weft-bom/pom.xml must list every library module (one <dependency> each)"
                        + " and nothing else; a module that is not a library sets <weft.internal>true</weft.internal>");
        assertTrue(
                pinned.containsAll(Set.of(
                        "weft-core",
                        "weft-clj",
                        "weft-async",
                        "weft-ring",
                        "weft-kotlin",
                        "weft-junit",
                        "weft-audit",
                        "weft-cli",
                        "weft-concurrency-limits")),
                pinned.toString());
        assertFalse(
                pinned.contains("weft-lab") || pinned.contains("weft-bench"),
                "the lab and the benchmarks are not libraries");
        assertNull(
                child(bom, "parent"),
                "the BOM has no parent: weft-parent's third-party versions must not come with an import");
        assertEquals(
                text(pom(ROOT.resolve("pom.xml")), "version"), text(bom, "version"), "weft-bom's version is weft's");
        assertTrue(modules().contains("weft-bom"), "weft-bom is built with the reactor");
    }

    @Test
    void everyPublishedPomCarriesWhatARepositoryNeeds() throws Exception {
        Element parent = pom(ROOT.resolve("pom.xml"));
        for (Element p : List.of(parent, pom(ROOT.resolve("weft-bom/pom.xml")))) {
            assertTrue(text(p, "url").startsWith("https://"), "url");
            assertEquals("Apache-2.0", text(p, "licenses", "license", "name"));
            assertTrue(text(p, "scm", "url").startsWith("https://"), "scm url");
            assertTrue(text(p, "scm", "connection").startsWith("scm:git:"), "scm connection");
        }
        assertEquals(
                "false", parent.getAttribute("child.project.url.inherit.append.path"), "modules share the project URL");
        for (String m : libraryModules()) {
            Element p = pom(ROOT.resolve(m).resolve("pom.xml"));
            assertEquals(m, text(p, "name"), m + ": <name>");
            assertTrue(text(p, "description") != null && text(p, "description").length() > 20, m + ": <description>");
            assertTrue(text(p, "properties", "weft.module.name").startsWith("dev.weft."), m + ": <weft.module.name>");
        }
        assertTrue(Files.readString(ROOT.resolve("LICENSE")).contains("Apache License"), "LICENSE at the root");
    }

    /** The dependencies of {@code module} that its users get at run time (compile and runtime scope). */
    private static Set<String> runtimeDependencies(String module) throws Exception {
        Set<String> runtime = new TreeSet<>();
        for (Element d : children(child(pom(ROOT.resolve(module).resolve("pom.xml")), "dependencies"), "dependency")) {
            String scope = text(d, "scope");
            if (scope == null || scope.equals("compile") || scope.equals("runtime")) {
                runtime.add(text(d, "groupId") + ":" + text(d, "artifactId"));
            }
        }
        return runtime;
    }

    @Test
    void weftCljDependsOnWeftCoreAndClojureOnly() throws Exception {
        // weft-diagnostics: weft.pin's monitor and checks, and weft.thread's scheduler snapshot; weft-pool: weft.pool
        // (0602)
        assertEquals(
                Set.of("dev.weft:weft-core", "dev.weft:weft-diagnostics", "dev.weft:weft-pool", "org.clojure:clojure"),
                runtimeDependencies("weft-clj"),
                "weft-clj's users must not get core.async (it is weft-async's)");
    }

    /** The part of {@code readme} under the heading {@code ## title}, up to the next such heading. */
    private static String section(String readme, String title) {
        int from = readme.indexOf("\n## " + title + "\n");
        assertTrue(from >= 0, "README.md has a section " + title);
        int to = readme.indexOf("\n## ", from + 1);
        return readme.substring(from, to < 0 ? readme.length() : to);
    }

    private static Set<String> artifacts(CharSequence text) {
        Set<String> named = new TreeSet<>();
        Matcher artifact = Pattern.compile("weft-[a-z0-9]+(?:-[a-z][a-z0-9]*)*").matcher(text);
        while (artifact.find()) {
            named.add(artifact.group());
        }
        return named;
    }

    @Test
    void theReadmeNamesEveryModuleAndItsInstallSnippetsUseWeftsVersion() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        Set<String> expected = new TreeSet<>(libraryModules());
        expected.add("weft-bom");
        StringBuilder rows = new StringBuilder();
        for (String line : section(readme, "Modules").lines().toList()) {
            if (line.startsWith("| `weft-")) {
                rows.append(line, 0, line.indexOf('|', 1)).append('\n');
            }
        }
        assertEquals(
                expected,
                artifacts(rows),
                "the Modules table names weft-bom and every library module, one row" + " each, and nothing else");
        StringBuilder code = new StringBuilder();
        Matcher block = Pattern.compile("(?s)```[a-z]*\n(.*?)```").matcher(section(readme, "Install"));
        while (block.find()) {
            code.append(block.group(1));
        }
        assertEquals(
                expected,
                artifacts(code),
                "the Install section's snippets (Maven, Gradle, deps.edn, Leiningen) name"
                        + " weft-bom and every library module, and nothing else");
        String version = text(pom(ROOT.resolve("pom.xml")), "version");
        // weft's own coordinates carry weft's version (./weft version sets them); the POM's other
        // versions (modelVersion, JUnit, the plugins a Maven 3.8 needs) are third-party and stay.
        Matcher v = Pattern.compile("(?s)<artifactId>weft-[a-z-]+</artifactId>\\s*<version>([^<]+)</version>"
                        + "|dev\\.weft/weft-[a-z-]+\\s+(?:\\{:mvn/version\\s+)?\"([^\"]+)\""
                        + "|dev\\.weft:weft-[a-z-]+:([^\"]+)\"")
                .matcher(code);
        int versions = 0;
        while (v.find()) {
            String found = v.group(1) != null ? v.group(1) : v.group(2) != null ? v.group(2) : v.group(3);
            assertEquals(
                    version,
                    found,
                    "a version of weft's coordinates in the Install snippets (./weft version sets them)");
            versions++;
        }
        assertTrue(
                versions >= 3,
                "the Install snippets give weft's version in Maven, deps.edn and Leiningen; found " + versions);
    }

    @Test
    void weftCoreHasNoRuntimeDependencyAndTheBlockingMarksAreCompileOnly() throws Exception {
        assertEquals(Set.of(), runtimeDependencies("weft-core"), "weft-core has no third-party dependency");
        for (String m : libraryModules()) {
            assertFalse(
                    runtimeDependencies(m).contains("org.jetbrains:annotations"),
                    m
                            + ": org.jetbrains:annotations (CLASS retention) is provided scope, never a user's runtime dependency");
        }
    }
}
