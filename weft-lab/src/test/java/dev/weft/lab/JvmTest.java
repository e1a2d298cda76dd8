package dev.weft.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lab's JVMs bind slf4j-simple unless told otherwise, with Logback on the same classpath (decision 0842). */
class JvmTest {

    private static final Duration START = Duration.ofSeconds(60);

    /** A child that says which SLF4J logger factory it bound, then exits. */
    public static final class Binding {
        public static void main(String[] args) {
            ChildJvm.tell(
                    "binding",
                    org.slf4j.LoggerFactory.getILoggerFactory().getClass().getName());
        }
    }

    @Test
    void namesSlf4jSimpleUnlessTheArgumentsNameAProvider() {
        List<String> plain = Jvm.command("java", List.of("-Xmx64m"), "cp", "Main", List.of());
        assertEquals(
                List.of(
                        "java",
                        "-Dslf4j.provider=org.slf4j.simple.SimpleServiceProvider",
                        "-Dslf4j.internal.verbosity=WARN",
                        "-Xmx64m",
                        "-cp",
                        "cp",
                        "Main"),
                plain);
        String logback = "-Dslf4j.provider=ch.qos.logback.classic.spi.LogbackServiceProvider";
        List<String> own = Jvm.command("java", List.of(logback), "cp", "Main", List.of());
        assertEquals(List.of("java", logback, "-cp", "cp", "Main"), own, "a provider the caller names is the only one");
    }

    @Test
    void aChildBindsSlf4jSimpleWithoutWarningAndLogbackWhenAsked(@TempDir Path dir) throws Exception {
        assertEquals("org.slf4j.simple.SimpleLoggerFactory", binding(dir, "default", List.of()));
        String stderr = Files.readString(dir.resolve("default.err"));
        assertTrue(stderr.isEmpty(), "no word from SLF4J (e.g. on multiple providers): " + stderr);
        assertEquals(
                "ch.qos.logback.classic.LoggerContext",
                binding(
                        dir,
                        "logback",
                        List.of(
                                "-Dslf4j.provider=ch.qos.logback.classic.spi.LogbackServiceProvider",
                                "-Dslf4j.internal.verbosity=WARN",
                                "-Dlogback.configurationFile=dev/weft/lab/scenarios/context/logback.xml")));
        String logbackErr = Files.readString(dir.resolve("logback.err"));
        assertTrue(logbackErr.isEmpty(), "the context JVM's Logback says nothing: " + logbackErr);
    }

    private static String binding(Path dir, String name, List<String> jvmArgs) throws Exception {
        ChildJvm child = ChildJvm.builder(name, Binding.class.getName())
                .jvmArgs(jvmArgs)
                .log(dir.resolve(name + ".log"))
                .stderr(dir.resolve(name + ".err"))
                .start();
        try {
            return child.await("binding", START);
        } finally {
            child.process().waitFor();
        }
    }
}
