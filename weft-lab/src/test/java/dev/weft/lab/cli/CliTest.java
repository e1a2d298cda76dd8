package dev.weft.lab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bad arguments: one line naming the problem and the usage, and exit status 2. */
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

    private static void assertOneUsageLine(Run r, String problem) {
        assertEquals(Main.USAGE, r.exit(), r.toString());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(r.err().contains(problem), r.err());
        assertTrue(r.err().contains("(usage: ./weft "), r.err());
    }

    @Test
    void listNamesEveryScenario() {
        Run r = run("lab", "--list");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("pinning") && r.out().contains("article 001"), r.out());
    }

    @Test
    void unknownOption() {
        assertOneUsageLine(run("lab", "--fulll"), "weft lab: Unknown option: '--fulll'");
    }

    @Test
    void missingValue() {
        assertOneUsageLine(run("lab", "--only"), "Missing required parameter for option '--only'");
    }

    @Test
    void unknownScenario() {
        assertOneUsageLine(run("lab", "--only", "pinning,nope"), "unknown scenario nope; known: ");
    }

    @Test
    void contradictoryModes() {
        assertOneUsageLine(run("lab", "--full", "--smoke"), "--full and --smoke exclude each other");
    }

    @Test
    void missingAndUnknownCommands() {
        assertOneUsageLine(run(), "weft: missing command");
        assertOneUsageLine(run("bogus"), "weft: Unmatched argument at index 0: 'bogus'");
    }

    @Test
    void helpGoesToStandardOutput() {
        Run r = run("lab", "--help");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("--only=NAME[,NAME...]") && r.out().contains("--out=DIR"), r.out());
    }
}
