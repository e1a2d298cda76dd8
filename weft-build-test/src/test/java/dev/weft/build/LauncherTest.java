package dev.weft.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ./weft launcher's own behaviour: finding a JDK and rejecting bad arguments. Only paths
 * that stop before building are exercised: a nested Maven starts only where it fails at once
 * (an install that cannot reach any Maven repository).
 */
class LauncherTest {

    private static final Path LAUNCHER = Path.of("..", "weft").toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    record Run(int exit, String out, String err) {
    }

    private Run weft(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return launch(LAUNCHER, env, args);
    }

    private Run launch(Path launcher, Map<String, String> env, String... args) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder();
        pb.command().add(launcher.toString());
        pb.command().addAll(List.of(args));
        pb.environment().remove("JAVA_HOME");
        pb.environment().putAll(env);
        Path out = tmp.resolve("out.txt");
        Path err = tmp.resolve("err.txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        int exit = p.waitFor();
        return new Run(exit, Files.readString(out), Files.readString(err));
    }

    /** A folder that looks like a JDK of the given version to the launcher, but runs nothing. */
    private Path fakeJdk(String name, String version) throws IOException {
        Path home = Files.createDirectories(tmp.resolve("jdks").resolve(name));
        Path bin = Files.createDirectories(home.resolve("bin"));
        for (String tool : List.of("java", "javac")) {
            Path f = Files.writeString(bin.resolve(tool), "#!/bin/sh\nexit 1\n");
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n", StandardCharsets.UTF_8);
        return home;
    }

    @Test
    void withoutAJdk21ItSaysWhatItFoundAndWhatToInstall() throws Exception {
        Path old = fakeJdk("jdk-17", "17.0.9");
        fakeJdk("jdk-11", "11.0.2");
        Run r = weft(Map.of("JAVA_HOME", old.toString(), "WEFT_JDK_DIRS", tmp.resolve("jdks").toString()), "lab", "--list");
        assertEquals(1, r.exit(), r.toString());
        assertTrue(r.err().contains("no JDK 21 or newer found (JAVA_HOME: " + old + ", JDK 17;"), r.err());
        assertTrue(r.err().contains("Install one, e.g. Temurin 21 or 25 from https://adoptium.net"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aJavaHomeTooOldIsReplacedByTheNewestJdkAndSaidSo() throws Exception {
        // the launcher builds, so it wants a JDK (javac); the matrix tier may run this on a runtime
        Assumptions.assumeTrue(Files.isExecutable(Path.of(System.getProperty("java.home"), "bin", "javac")),
                "the JVM running this test is a runtime without javac, which the launcher rightly refuses as a JDK");
        Path old = fakeJdk("jdk-17", "17.0.9");
        Path dirs = Files.createDirectories(tmp.resolve("real"));
        Path real = Files.createSymbolicLink(dirs.resolve("this-jdk"), Path.of(System.getProperty("java.home")));
        Run r = weft(Map.of("JAVA_HOME", old.toString(), "WEFT_JDK_DIRS", dirs.toString()), "test", "--bogus");
        assertTrue(r.err().contains("JAVA_HOME (" + old + ") is not a JDK 21 or newer; using " + real + " instead"), r.err());
        assertTrue(r.err().contains("using JDK " + System.getProperty("java.version")), r.err());
        assertEquals(2, r.exit(), "then the bad argument is reported: " + r);
        assertTrue(r.err().contains("test: unknown argument '--bogus' (usage: ./weft test --help)"), r.err());
    }

    @Test
    void badCommandsGetOneLineWithTheUsage() throws Exception {
        for (String[] args : List.of(new String[0], new String[] {"bogus"})) {
            Run r = weft(Map.of(), args);
            assertEquals(2, r.exit(), r.toString());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().contains("(usage: ./weft <"), r.err());
        }
    }

    @Test
    void benchHelpSaysHowArgumentsReachJmhWithoutBuilding() throws Exception {
        Run r = weft(Map.of("JAVA_HOME", System.getProperty("java.home")), "bench", "--help");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("usage: ./weft bench [JMH options] [benchmark regexp]"), r.out());
        assertTrue(r.out().contains("Every argument goes to JMH"), r.out());
        assertTrue(!r.err().contains("building") && !r.err().contains("rebuilding"), "--help builds nothing: " + r.err());
    }

    @Test
    void replAndJshellCheckTheirClasspathBeforeBuilding() throws Exception {
        Map<String, String> jdk = Map.of("JAVA_HOME", System.getProperty("java.home"));
        Run missing = weft(jdk, "repl", "--cp", tmp.resolve("classes") + ":" + tmp);
        assertEquals(1, missing.exit(), missing.toString());
        assertTrue(missing.err().contains("repl: --cp names '" + tmp.resolve("classes") + "', which does not exist"), missing.err());
        Run empty = weft(jdk, "jshell", "--cp");
        assertEquals(2, empty.exit(), empty.toString());
        assertTrue(empty.err().contains("jshell: --cp needs a classpath"), empty.err());
        assertTrue(!missing.err().contains("building") && !empty.err().contains("building"), "nothing built: " + missing + empty);
    }

    @Test
    void helpNeedsNoJdk() throws Exception {
        Run r = weft(Map.of("WEFT_JDK_DIRS", tmp.toString(), "JAVA_HOME", tmp.toString()), "help");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("./weft lab") || r.out().contains("lab "), r.out());
        assertTrue(r.out().contains("N passed, N failed"), r.out());
    }

    @Test
    void installWithoutNetworkSaysSoInOneLine() throws Exception {
        Path settings = Files.writeString(tmp.resolve("settings.xml"), "<settings><mirrors><mirror><id>nowhere</id>"
                + "<mirrorOf>*</mirrorOf><url>http://127.0.0.1:9/maven2</url></mirror></mirrors></settings>");
        Run r = weft(Map.of("JAVA_HOME", System.getProperty("java.home"), "MAVEN_OPTS", "", "MAVEN_ARGS", ""),
                "install", "-Dmaven.repo.local=" + tmp.resolve("empty-repo"), "-s", settings.toString());
        assertEquals(1, r.exit(), r.toString());
        // Informational lines are not problems; on a JDK 21 runtime without javac (the matrix tier)
        // the launcher also says it builds with another JDK.
        List<String> problems = r.err().lines().filter(l -> !l.startsWith("weft: using JDK") && !l.startsWith("weft: installing")
                && !l.startsWith("weft: using Maven") && !l.startsWith("weft: JAVA_HOME (")).toList();
        assertEquals(1, problems.size(), r.err());
        assertTrue(problems.get(0).startsWith("weft: cannot download "), r.err());
        assertTrue(problems.get(0).contains("from http://127.0.0.1:9/maven2 (Connection refused): no network access"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aFailedCombinationNamesItsFailedTestsUnderItsLine() throws Exception {
        // The launcher's functions without its main, sourced by a script that plays a tier: one
        // Surefire report and one clojure.test summary with failures, newer than the marker.
        Path copy = Files.createDirectories(tmp.resolve("checkout"));
        String launcher = Files.readString(LAUNCHER);
        assertTrue(launcher.endsWith("main \"$@\"\n"), "the launcher ends by calling main");
        Files.writeString(copy.resolve("weft"), launcher.substring(0, launcher.length() - "main \"$@\"\n".length()));
        Files.createDirectories(copy.resolve("build"));   // what the launcher sources
        Files.copy(LAUNCHER.resolveSibling("build/debian-package.sh"), copy.resolve("build/debian-package.sh"));
        Path reports = Files.createDirectories(copy.resolve("m/target/surefire-reports"));
        Path clj = Files.createDirectories(copy.resolve("m/target/clojure-test"));
        Files.writeString(copy.resolve("tier.sh"), String.join("\n",
                "source \"$1/weft\"",
                "WEFT_TEST_RESULTS=$1/results WEFT_TEST_FAILED=$1/failed",
                "marker=$(new_marker); sleep 1",
                "cat > " + reports.resolve("TEST-x.FooTest.xml") + " <<'XML'",
                "<testsuite name=\"x.FooTest\" tests=\"3\" errors=\"1\" failures=\"1\" skipped=\"0\">",
                "  <testcase name=\"passes\" classname=\"x.FooTest\" time=\"0.1\"/>",
                "  <testcase name=\"fails\" classname=\"x.FooTest\" time=\"0.1\">",
                "    <failure message=\"expected: &lt;1&gt; but was: &lt;2&gt;\" type=\"AssertionFailedError\">trace</failure>",
                "  </testcase>",
                "  <testcase name=\"throws\" classname=\"x.FooTest\" time=\"0.1\">",
                "    <error type=\"IllegalStateException\">trace</error>",
                "  </testcase>",
                "</testsuite>",
                "XML",
                "printf '4 1\\nweft.bar-test/slow-drain: the drain lost 1 request\\n' > " + clj.resolve("summary.txt"),
                "read -r p f < <(count_tests \"$marker\" \"$1/m\")",
                "test_report 'm, JDK 25' \"$p\" \"$f\"",
                "test_report 'n, JDK 25' 5 0",
                "cut -f 4 \"$1/results\" | tr '\\036' '|'",
                ""));
        ProcessBuilder pb = new ProcessBuilder("bash", copy.resolve("tier.sh").toString(), copy.toString());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        List<String> lines = out.lines().toList();
        assertEquals(List.of(
                "m, JDK 25: 5 passed, 3 failed",
                "  failed: x.FooTest.fails: expected: &lt;1&gt; but was: &lt;2&gt;",
                "  failed: x.FooTest.throws: ",
                "  failed: weft.bar-test/slow-drain: the drain lost 1 request",
                "n, JDK 25: 5 passed, 0 failed",
                // the summary's copy: the same lines, joined by the record separator in the results file
                "  failed: x.FooTest.fails: expected: &lt;1&gt; but was: &lt;2&gt;|  failed: x.FooTest.throws: "
                        + "|  failed: weft.bar-test/slow-drain: the drain lost 1 request",
                ""), lines, out);
    }

    @Test
    void versionSetsItInEveryPomReadmeAndExampleWithoutAJdk() throws Exception {
        // A copy of the checkout's launcher, what it sources, and every POM and README it may edit.
        Path root = LAUNCHER.getParent();
        Path copy = tmp.resolve("checkout");
        List<Path> files = new ArrayList<>(List.of(Path.of("weft"), Path.of("build/debian-package.sh")));
        try (Stream<Path> walk = Files.walk(root, 3)) {
            walk.map(root::relativize)
                    .filter(p -> Set.of("pom.xml", "README.md", "deps.edn").contains(p.getFileName().toString()))
                    .filter(p -> !p.toString().contains("target") && !p.toString().contains("src"))
                    .forEach(files::add);
        }
        for (Path f : files) {
            Files.createDirectories(copy.resolve(f).getParent());
            Files.copy(root.resolve(f), copy.resolve(f), StandardCopyOption.COPY_ATTRIBUTES);
        }
        Matcher m = Pattern.compile("<artifactId>weft-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(root.resolve("pom.xml")));
        assertTrue(m.find(), "weft-parent's version in pom.xml");
        String old = m.group(1);
        String next = "9.8.7-rc1";

        Run r = launch(copy.resolve("weft"), Map.of("WEFT_JDK_DIRS", tmp.toString(), "JAVA_HOME", tmp.toString()), "version", next);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().contains("setting version " + next + " (was " + old + ")"), r.err());
        for (Path f : files.subList(2, files.size())) {
            String text = Files.readString(copy.resolve(f));
            assertFalse(text.contains(old), f + " still names " + old);
            if (f.getFileName().toString().equals("pom.xml") && !text.contains("<parent>") && text.contains("weft.version")) {
                assertTrue(text.contains("<weft.version>" + next + "</weft.version>"), f.toString());   // examples, README runner
            }
        }
        String readme = Files.readString(copy.resolve("README.md"));
        for (String coordinates : List.of("<version>" + next + "</version>", "dev.weft:weft-bom:" + next,
                "{:mvn/version \"" + next + "\"}", "[dev.weft/weft-clj \"" + next + "\"]")) {
            assertTrue(readme.contains(coordinates), "README.md's install snippets: " + coordinates);
        }
        assertTrue(files.stream().filter(f -> f.startsWith("examples")).count() >= 3, files.toString());

        Run bad = launch(copy.resolve("weft"), Map.of("JAVA_HOME", tmp.toString()), "version", "1.x");
        assertEquals(2, bad.exit(), bad.toString());
        assertTrue(bad.err().contains("'1.x' is not a version"), bad.err());
    }

    @Test
    void installHelpNamesTheRepositoryRulesWithoutBuilding() throws Exception {
        Run r = weft(Map.of("JAVA_HOME", System.getProperty("java.home")), "install", "--help");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("-Dmaven.repo.local") && r.out().contains("MAVEN_ARGS"), r.out());
        assertTrue(!r.err().contains("building"), r.err());
    }
}
