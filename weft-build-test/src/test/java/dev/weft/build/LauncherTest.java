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
 * The ./weft launcher's own behaviour: finding a JDK and Maven (the Maven Wrapper's), rejecting
 * bad arguments, and setting the version. Only paths that stop before building are exercised: a
 * nested Maven starts only where it fails at once (an install that cannot reach any Maven
 * repository) or edits a copy's POMs (./weft version).
 */
class LauncherTest {

    private static final Path LAUNCHER = Path.of("..", "weft").toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    record Run(int exit, String out, String err) {}

    private Run weft(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return launch(LAUNCHER, env, args);
    }

    private Run launch(Path launcher, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
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
        Run r = weft(
                Map.of(
                        "JAVA_HOME",
                        old.toString(),
                        "WEFT_JDK_DIRS",
                        tmp.resolve("jdks").toString()),
                "lab",
                "--list");
        assertEquals(1, r.exit(), r.toString());
        assertTrue(r.err().contains("no JDK 21 or newer found (JAVA_HOME: " + old + ", JDK 17;"), r.err());
        assertTrue(r.err().contains("Install one, e.g. Temurin 21 or 25 from https://adoptium.net"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aJavaHomeTooOldIsReplacedByTheNewestJdkAndSaidSo() throws Exception {
        // the launcher builds, so it wants a JDK (javac); the matrix tier may run this on a runtime
        Assumptions.assumeTrue(
                Files.isExecutable(Path.of(System.getProperty("java.home"), "bin", "javac")),
                "the JVM running this test is a runtime without javac, which the launcher rightly refuses as a JDK");
        Path old = fakeJdk("jdk-17", "17.0.9");
        Path dirs = Files.createDirectories(tmp.resolve("real"));
        Path real = Files.createSymbolicLink(dirs.resolve("this-jdk"), Path.of(System.getProperty("java.home")));
        Run r = weft(Map.of("JAVA_HOME", old.toString(), "WEFT_JDK_DIRS", dirs.toString()), "test", "--bogus");
        assertTrue(
                r.err().contains("JAVA_HOME (" + old + ") is not a JDK 21 or newer; using " + real + " instead"),
                r.err());
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
        assertTrue(
                !r.err().contains("building") && !r.err().contains("rebuilding"), "--help builds nothing: " + r.err());
    }

    @Test
    void replAndJshellCheckTheirClasspathBeforeBuilding() throws Exception {
        Map<String, String> jdk = Map.of("JAVA_HOME", System.getProperty("java.home"));
        Run missing = weft(jdk, "repl", "--cp", tmp.resolve("classes") + ":" + tmp);
        assertEquals(1, missing.exit(), missing.toString());
        assertTrue(
                missing.err().contains("repl: --cp names '" + tmp.resolve("classes") + "', which does not exist"),
                missing.err());
        Run empty = weft(jdk, "jshell", "--cp");
        assertEquals(2, empty.exit(), empty.toString());
        assertTrue(empty.err().contains("jshell: --cp needs a classpath"), empty.err());
        assertTrue(
                !missing.err().contains("building") && !empty.err().contains("building"),
                "nothing built: " + missing + empty);
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
        Path settings = Files.writeString(
                tmp.resolve("settings.xml"),
                "<settings><mirrors><mirror><id>nowhere</id>"
                        + "<mirrorOf>*</mirrorOf><url>http://127.0.0.1:9/maven2</url></mirror></mirrors></settings>");
        Run r = weft(
                Map.of("JAVA_HOME", System.getProperty("java.home"), "MAVEN_OPTS", "", "MAVEN_ARGS", ""),
                "install",
                "-Dmaven.repo.local=" + tmp.resolve("empty-repo"),
                "-s",
                settings.toString());
        assertEquals(1, r.exit(), r.toString());
        // Informational lines are not problems; on a JDK 21 runtime without javac (the matrix tier)
        // the launcher also says it builds with another JDK.
        List<String> problems = r.err()
                .lines()
                .filter(l -> !l.startsWith("weft: using JDK")
                        && !l.startsWith("weft: installing")
                        && !l.startsWith("weft: using Maven")
                        && !l.startsWith("weft: JAVA_HOME ("))
                .toList();
        assertEquals(1, problems.size(), r.err());
        assertTrue(problems.get(0).startsWith("weft: cannot download "), r.err());
        assertTrue(
                problems.get(0).contains("from http://127.0.0.1:9/maven2 (Connection refused): no network access"),
                r.err());
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
        Files.createDirectories(copy.resolve("build")); // what the launcher sources
        Files.copy(LAUNCHER.resolveSibling("build/debian-package.sh"), copy.resolve("build/debian-package.sh"));
        Path reports = Files.createDirectories(copy.resolve("m/target/surefire-reports"));
        Path clj = Files.createDirectories(copy.resolve("m/target/clojure-test"));
        Files.writeString(
                copy.resolve("tier.sh"),
                String.join(
                        "\n",
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
                        "printf '4 1\\nweft.bar-test/slow-drain: the drain lost 1 request\\n' > "
                                + clj.resolve("summary.txt"),
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
        assertEquals(
                List.of(
                        "m, JDK 25: 5 passed, 3 failed",
                        "  failed: x.FooTest.fails: expected: &lt;1&gt; but was: &lt;2&gt;",
                        "  failed: x.FooTest.throws: ",
                        "  failed: weft.bar-test/slow-drain: the drain lost 1 request",
                        "n, JDK 25: 5 passed, 0 failed",
                        // the summary's copy: the same lines, joined by the record separator in the results file
                        "  failed: x.FooTest.fails: expected: &lt;1&gt; but was: &lt;2&gt;|  failed: x.FooTest.throws: "
                                + "|  failed: weft.bar-test/slow-drain: the drain lost 1 request",
                        ""),
                lines,
                out);
    }

    @Test
    void versionSetsItInEveryPomReadmeAndExample() throws Exception {
        // A copy of the checkout's launcher, what it sources and runs (the Maven Wrapper and .mvn),
        // and every POM, README and guide it may edit.
        Path root = LAUNCHER.getParent();
        Path copy = tmp.resolve("checkout");
        List<Path> files =
                new ArrayList<>(List.of(Path.of("weft"), Path.of("build/debian-package.sh"), Path.of("mvnw")));
        try (Stream<Path> walk = Files.walk(root.resolve(".mvn"))) {
            walk.filter(Files::isRegularFile).map(root::relativize).forEach(files::add);
        }
        int edited = files.size();
        try (Stream<Path> walk = Files.walk(root, 3)) {
            walk.map(root::relativize)
                    .filter(p -> Set.of("pom.xml", "README.md", "deps.edn")
                                    .contains(p.getFileName().toString())
                            || p.startsWith("doc/guides") && p.toString().endsWith(".md"))
                    .filter(p ->
                            !p.toString().contains("target") && !p.toString().contains("src"))
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
        // A third-party version that happens to read like weft's is not weft's: versions:set leaves it.
        String thirdParty = "<dependency><groupId>org.example</groupId><artifactId>other</artifactId><version>" + old
                + "</version></dependency>";
        Path buildTestPom = copy.resolve("weft-build-test/pom.xml");
        Files.writeString(
                buildTestPom,
                Files.readString(buildTestPom)
                        .replace(
                                "</properties>",
                                "</properties>\n  <dependencyManagement><dependencies>" + thirdParty
                                        + "</dependencies></dependencyManagement>"));

        Run r = launch(copy.resolve("weft"), Map.of("JAVA_HOME", System.getProperty("java.home")), "version", next);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().contains("setting version " + next + " (was " + old + ")"), r.err());
        for (Path f : files.subList(edited, files.size())) {
            String text = Files.readString(copy.resolve(f)).replace(thirdParty, "");
            assertFalse(text.contains(old), f + " still names " + old);
            if (f.getFileName().toString().equals("pom.xml")
                    && !text.contains("<parent>")
                    && text.contains("weft.version")) {
                assertTrue(
                        text.contains("<weft.version>" + next + "</weft.version>"),
                        f.toString()); // examples, README runner
            }
        }
        assertTrue(Files.readString(buildTestPom).contains(thirdParty), "the third-party version is unchanged");
        assertTrue(
                Files.readString(copy.resolve("weft-bom/pom.xml")).contains("<version>" + next + "</version>"),
                "weft-bom");
        String readme = Files.readString(copy.resolve("README.md"));
        for (String coordinates : List.of(
                "<version>" + next + "</version>",
                "dev.weft:weft-bom:" + next,
                "{:mvn/version \"" + next + "\"}",
                "[dev.weft/weft-clj \"" + next + "\"]")) {
            assertTrue(readme.contains(coordinates), "README.md's install snippets: " + coordinates);
        }
        assertTrue(files.stream().filter(f -> f.startsWith("examples")).count() >= 3, files.toString());

        // A bad version is refused before anything else, so without a JDK too.
        Run bad = launch(
                copy.resolve("weft"),
                Map.of("JAVA_HOME", tmp.toString(), "WEFT_JDK_DIRS", tmp.toString()),
                "version",
                "1.x");
        assertEquals(2, bad.exit(), bad.toString());
        assertTrue(bad.err().contains("'1.x' is not a version"), bad.err());
    }

    /** The Maven version that .mvn/wrapper/maven-wrapper.properties pins. */
    private static String wrapperMaven() throws IOException {
        Matcher m = Pattern.compile("apache-maven-([0-9.]+)-bin\\.zip")
                .matcher(Files.readString(LAUNCHER.resolveSibling(".mvn/wrapper/maven-wrapper.properties")));
        assertTrue(m.find(), "distributionUrl in maven-wrapper.properties");
        return m.group(1);
    }

    /**
     * An environment where ./mvnw must download its Maven and cannot (an empty home, a mirror
     * nobody listens on), and where the mvn on PATH is a script reporting version {@code pathMaven}.
     */
    private Map<String, String> noMavenDownload(String pathMaven) throws IOException {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path mvn = Files.writeString(
                bin.resolve("mvn"),
                "#!/bin/sh\n"
                        + "if [ \"$1\" = -v ]; then echo 'Apache Maven " + pathMaven + " (fake)'; exit 0; fi\n"
                        + "echo \"the PATH's mvn ran: $*\"; exit 1\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path home = Files.createDirectories(tmp.resolve("home"));
        return Map.of(
                "JAVA_HOME",
                System.getProperty("java.home"),
                "HOME",
                home.toString(),
                "MAVEN_USER_HOME",
                home.resolve(".m2").toString(),
                "MVNW_REPOURL",
                "http://127.0.0.1:9",
                "PATH",
                bin + ":" + System.getenv("PATH"),
                "MAVEN_OPTS",
                "",
                "MAVEN_ARGS",
                "");
    }

    @Test
    void aMavenThatCannotBeDownloadedIsOneLineNamingTheFix() throws Exception {
        Run r = weft(noMavenDownload("3.6.3"), "install");
        assertEquals(1, r.exit(), r.toString());
        List<String> problems = r.err()
                .lines()
                .filter(l -> !l.startsWith("weft: using JDK") && !l.startsWith("weft: JAVA_HOME ("))
                .toList();
        assertEquals(1, problems.size(), r.err());
        assertTrue(
                problems.get(0).startsWith("weft: cannot download Apache Maven " + wrapperMaven() + " with ./mvnw ("),
                r.err());
        assertTrue(problems.get(0).contains("127.0.0.1:9"), "names the address it tried: " + r.err());
        assertTrue(
                problems.get(0).contains("MVNW_REPOURL") && problems.get(0).contains("Maven 3.9+ on the PATH"),
                r.err());
        assertFalse(r.err().contains("the PATH's mvn ran"), "a Maven older than 3.8 is not used: " + r.err());
        assertEquals("", r.out());
    }

    @Test
    void withoutTheWrappersMavenAMaven38OnThePathBuildsAndItSaysSo() throws Exception {
        Run r = weft(noMavenDownload("3.8.7"), "install");
        assertTrue(r.err().contains("weft: ./mvnw could not download Apache Maven " + wrapperMaven() + " ("), r.err());
        assertTrue(r.err().contains("using Maven 3.8.7 from PATH instead"), r.err());
        assertTrue(r.err().contains("the PATH's mvn ran: -B"), "the build ran with it: " + r.err());
        assertEquals(1, r.exit(), "the stand-in Maven fails the build: " + r);
    }

    @Test
    void installHelpNamesTheRepositoryRulesWithoutBuilding() throws Exception {
        Run r = weft(Map.of("JAVA_HOME", System.getProperty("java.home")), "install", "--help");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("-Dmaven.repo.local") && r.out().contains("MAVEN_ARGS"), r.out());
        assertTrue(!r.err().contains("building"), r.err());
    }
}
