package dev.weft.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The committed JDBC wrappers are what build/jdbc/GenerateWrappers.java writes: a change to the
 * generator without regenerating (or a hand edit of a generated file) fails here.
 */
class WrappersAreGeneratedTest {

    @Test
    void theCommittedWrappersMatchTheGenerator() throws Exception {
        Path module = Path.of("").toAbsolutePath();
        Path generator = module.resolveSibling("build").resolve("jdbc").resolve("GenerateWrappers.java");
        assertTrue(Files.exists(generator), "the generator is at " + generator);
        // The generator runs as a source file, which needs javac: the JDK 21 runtime the matrix
        // tier uses has none (decision 0204); the build JDK runs this check in the unit tier.
        assumeTrue(
                ModuleLayer.boot().findModule("jdk.compiler").isPresent(),
                "this Java runtime has no jdk.compiler to run the generator; the build JDK checks it");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(
                        java.toString(),
                        generator.toString(),
                        "--check",
                        module.resolve("src/main/java/dev/weft/jdbc").toString())
                .redirectErrorStream(true)
                .start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the generator finished");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
    }
}
