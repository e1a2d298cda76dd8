package dev.weft.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The agent jar as users run it: a real JVM started with {@code -javaagent:weft-agent-<version>.jar=...}
 * and a workload that pins, its log and the MBean read in that JVM. Runs in the package phase,
 * after the shade plugin made the jar (see the pom).
 */
class WeftAgentTest {

    static final String JAVA = ProcessHandle.current().info().command().orElse("java");

    /** The shaded jar, named by the pom (this test runs after the package phase's shade). */
    static Path agentJar() {
        String jar = System.getProperty("weft.agent.jar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("no agent jar (weft.agent.jar=" + jar + "): run this test through Maven's"
                    + " package phase, after the shade plugin made it");
        }
        return Path.of(jar);
    }

    /** This test's class path without the agent's own unrelocated classes: the application's weft stays on it. */
    static String applicationClassPath() {
        return String.join(
                File.pathSeparator,
                Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                        .filter(e -> !Path.of(e)
                                .toAbsolutePath()
                                .normalize()
                                .endsWith(Path.of("weft-agent", "target", "classes")))
                        .toList());
    }

    record Run(int exit, String out, String err) {}

    static Run java(String agentOptions, String... mainAndArgs) throws Exception {
        Path err = Files.createTempFile("weft-agent-test-", ".err");
        List<String> command = new java.util.ArrayList<>(List.of(
                JAVA,
                "-javaagent:" + agentJar().toAbsolutePath() + (agentOptions == null ? "" : "=" + agentOptions),
                "-cp",
                applicationClassPath()));
        command.addAll(List.of(mainAndArgs));
        Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        String errText = Files.readString(err);
        Files.delete(err);
        return new Run(p.exitValue(), out, errText);
    }

    @Test
    void watchesAnyJvmLogsBySiteAndCountsInTheMBean() throws Exception {
        Run r = java("interval=1s,threshold=0ms,detectors=pins+starvation", AgentWorkload.class.getName(), "1000");
        String both = r.out() + "\n--- stderr ---\n" + r.err();
        assertEquals(0, r.exit(), both);
        assertTrue(r.out().contains("done"), both);
        assertTrue(
                r.err()
                        .contains("weft agent: watching pins+starvation (threshold 0 ms), a summary every 1 s,"
                                + " MBean dev.weft:type=Agent"),
                both);
        Matcher pins = Pattern.compile("mbean Pins=(\\d+)").matcher(r.out());
        assertTrue(pins.find(), both);
        assertTrue(Long.parseLong(pins.group(1)) >= 6, "5 class initializers and the application's own probe: " + both);
        assertTrue(r.out().contains("mbean class=dev.weft.agent.AgentRun"), both);
        assertTrue(r.out().contains("mbean Detectors=pins+starvation"), both);
        assertTrue(r.out().contains("mbean StarvationEpisodes="), both);
        assertTrue(r.out().contains("AgentWorkload$Init"), "the report names the sites: " + both);
        // the pin monitor's periodic summary, through System.Logger (java.util.logging here)
        assertTrue(r.err().contains("weft pin monitor"), both);
        assertTrue(r.err().matches("(?s).*pins? in the last 1 s \\(\\d+ since start\\).*"), both);
        assertTrue(
                r.err().contains("at dev.weft.agent.AgentWorkload.block"),
                "by site, at its first application frame: " + both);
    }

    @Test
    void theStarvationDetectorAloneLogsNoPinsAndTheMBeanSaysSo() throws Exception {
        Run r = java("interval=1s,detectors=starvation", AgentWorkload.class.getName(), "1000");
        String both = r.out() + "\n--- stderr ---\n" + r.err();
        // the workload waits for Pins >= 6, which stays -1 (off): it gives up after its deadline
        assertEquals(0, r.exit(), both);
        assertTrue(r.out().contains("mbean Pins=-1"), both);
        assertTrue(r.out().contains("mbean Detectors=starvation"), both);
        assertFalse(r.err().contains("weft pin monitor"), both);
    }

    @Test
    void aBadOptionStopsTheJvmNamingIt() throws Exception {
        Run r = java("interval=soon", AgentWorkload.class.getName(), "1000");
        assertNotEquals(0, r.exit());
        assertTrue(
                r.err().contains("interval: 'soon' is not a duration; write e.g. 500ms, 30s, 5m, 1h or PT30S"),
                r.err());
        Run unknown = java("detectors=pins+gc", AgentWorkload.class.getName(), "1000");
        assertNotEquals(0, unknown.exit());
        assertTrue(unknown.err().contains("unknown detector 'gc'"), unknown.err());
    }

    @Test
    void theJarCarriesWeftRelocatedAndNothingElse() throws Exception {
        try (JarFile jar = new JarFile(agentJar().toFile())) {
            List<String> names =
                    jar.stream().map(java.util.zip.ZipEntry::getName).toList();
            assertTrue(names.contains("dev/weft/agent/WeftAgent.class"), names.toString());
            assertTrue(names.contains("dev/weft/agent/internal/weft/pin/PinMonitor.class"), names.toString());
            assertTrue(
                    names.contains("dev/weft/agent/internal/weft/thread/internal/Durations.class"), names.toString());
            assertEquals(
                    List.of(),
                    names.stream()
                            .filter(n -> n.endsWith(".class") && !n.startsWith("dev/weft/agent/"))
                            .toList(),
                    "only the agent's package");
            var manifest = jar.getManifest().getMainAttributes();
            assertEquals("dev.weft.agent.WeftAgent", manifest.getValue("Premain-Class"));
            assertEquals("dev.weft.agent.WeftAgent", manifest.getValue("Agent-Class"));
        }
    }
}
