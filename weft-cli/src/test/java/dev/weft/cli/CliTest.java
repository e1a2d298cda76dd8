package dev.weft.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bad arguments: one line naming the problem and the usage, and exit status 2. */
class CliTest {

    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void assertOneUsageLine(Run r, String problem) {
        assertEquals(Main.USAGE, r.exit(), r.toString());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(r.err().contains(problem), r.err());
        assertTrue(r.err().contains("(usage: ./weft "), r.err());
    }

    @Test
    void missingAndUnknownCommands() {
        assertOneUsageLine(run(), "weft: missing command");
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
