package dev.weft.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bad arguments: one line naming the problem and the usage, and exit status 2; help in every form. */
class CliTest {

    record Run(int exit, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Tests run the classes from a folder, not a jar: the usage names the jar generically. */
    private static final String STARTED = "java -jar weft-cli-<version>.jar";

    private static void assertOneUsageLine(Run r, String problem) {
        assertEquals(Main.USAGE, r.exit(), r.toString());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(r.err().contains(problem), r.err());
        assertTrue(r.err().contains("(usage: " + STARTED + " "), r.err());
    }

    @Test
    void helpInEveryFormPrintsTheUsage() {
        for (String help : new String[] {"help", "-h", "--help"}) {
            Run r = run(help);
            assertEquals(0, r.exit(), help + ": " + r);
            assertTrue(r.out().contains("Usage: " + STARTED + " <audit|pins> [options]"), help + ": " + r.out());
            assertTrue(r.out().contains("audit") && r.out().contains("pins"), r.out());
        }
        Run audit = run("help", "audit");
        assertEquals(0, audit.exit());
        assertTrue(audit.out().contains("Usage: " + STARTED + " audit <jar|dir|classpath>..."), audit.out());
        Run none = run();
        assertEquals(Main.USAGE, none.exit(), "no command: the usage, as a failure");
        assertTrue(none.err().contains("Usage: " + STARTED + " <audit|pins>"), none.err());
        assertOneUsageLine(run("help", "bogus"), "weft: no command 'bogus'");
    }

    @Test
    void usageLinesNameTheWayTheCommandWasStarted() {
        System.setProperty("weft.launcher", "./weft");
        try {
            assertTrue(run("--help").out().contains("Usage: ./weft <audit|pins> [options]"));
            assertTrue(run("audit", "x.jar", "--formatt", "json")
                    .err()
                    .contains("(usage: ./weft audit <jar|dir|classpath>..."));
        } finally {
            System.clearProperty("weft.launcher");
        }
    }

    @Test
    void missingAndUnknownCommands() {
        assertOneUsageLine(run("bogus"), "weft: Unmatched argument at index 0: 'bogus'");
        assertOneUsageLine(run("lab"), "weft: Unmatched argument at index 0: 'lab'");
    }

    @Test
    void unknownOptionNamesTheCommand() {
        assertOneUsageLine(run("audit", "x.jar", "--formatt", "json"), "weft audit: Unknown option: '--formatt'");
        assertOneUsageLine(run("pins", "1", "--jsn"), "weft pins: Unknown option: '--jsn'");
    }

    @Test
    void helpGoesToStandardOutput() {
        Run audit = run("audit", "--help");
        assertEquals(0, audit.exit());
        assertTrue(audit.out().contains("--fail-on=SEVERITY") && audit.out().contains("--target-jdk=N"), audit.out());
        Run pins = run("pins", "--help");
        assertEquals(0, pins.exit());
        assertTrue(pins.out().contains("--for=DURATION"), pins.out());
    }
}
