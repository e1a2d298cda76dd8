package dev.weft.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildJvmTest {

    /** Generous: a JVM start on a loaded 2-core machine. */
    private static final Duration START = Duration.ofSeconds(60);

    /**
     * A child: prints a plain line, says {@code ready <pid>}, then per command {@code say <tag> <text>}
     * says {@code <tag> <text>}, {@code exit <n>} exits with n; exits 0 at the end of its input.
     */
    public static final class Echo {
        public static void main(String[] args) {
            System.out.println("a plain line");
            System.err.println("a line on stderr");
            ChildJvm.tell("ready", Long.toString(ProcessHandle.current().pid()));
            for (String line : ChildJvm.commands()) {
                String[] f = line.split(" ", 3);
                switch (f[0]) {
                    case "say" -> ChildJvm.tell(f[1], f.length > 2 ? f[2] : "");
                    case "exit" -> System.exit(Integer.parseInt(f[1]));
                    default -> System.out.println("unknown: " + line);
                }
            }
        }
    }

    private static ChildJvm echo(Path dir, List<String> lines) throws IOException {
        return ChildJvm.builder("echo", Echo.class.getName())
                .log(dir.resolve("echo.log"))
                .onLine(lines::add)
                .start();
    }

    @Test
    void exchangesCommandsAndMessagesByTagAndEndsWhenItsInputEnds(@TempDir Path dir) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        ChildJvm child = echo(dir, lines);
        try {
            assertEquals(child.process().pid(), Long.parseLong(child.await("ready", START)));
            child.send("say x first");
            child.send("say y second");
            child.send("say z");
            assertEquals("second", child.await("y", START), "a message waits for its own tag");
            assertEquals("first", child.await("x", START));
            assertEquals("", child.await("z", START), "a message without payload");
            child.endInput();
            assertEquals(0, child.awaitExit(START));
            assertEquals(
                    List.of("a line on stderr", "a plain line"),
                    lines.stream().sorted().toList(),
                    "every line that is not a message, standard error joined");
            String log = Files.readString(dir.resolve("echo.log"));
            assertTrue(log.contains("a plain line") && log.contains(ChildJvm.PREFIX + "y second"), log);
            assertFalse(ChildJvm.live().contains(child), "a child that exited is not tracked any more");
        } finally {
            child.stop();
        }
    }

    @Test
    void aWaitEndsWithTheStatusAndTheLogWhenTheChildExits(@TempDir Path dir) throws Exception {
        ChildJvm child = echo(dir, new CopyOnWriteArrayList<>());
        try {
            child.await("ready", START);
            child.send("exit 3");
            IOException e = assertThrows(IOException.class, () -> child.await("never", START));
            assertTrue(e.getMessage().contains("echo JVM exited with status 3 before it said never"), e.getMessage());
            assertTrue(e.getMessage().contains("a plain line"), "the log's end: " + e.getMessage());
        } finally {
            child.stop();
        }
    }

    @Test
    void aWaitTimesOutAndStopEndsTheChildByPid(@TempDir Path dir) throws Exception {
        ChildJvm child = echo(dir, new CopyOnWriteArrayList<>());
        try {
            child.await("ready", START);
            assertTrue(ChildJvm.live().contains(child));
            IOException e = assertThrows(IOException.class, () -> child.await("never", Duration.ofMillis(200)));
            assertTrue(e.getMessage().contains("echo JVM did not say never within 200 ms"), e.getMessage());
            assertTrue(child.process().isAlive(), "a wait that timed out leaves the child to the caller");
        } finally {
            child.stop();
        }
        assertFalse(child.process().isAlive());
        assertFalse(ChildJvm.live().contains(child));
    }

    @Test
    void aMessageIsOneWordAndOneLine() {
        assertThrows(IllegalArgumentException.class, () -> ChildJvm.tell("two words", "x"));
        assertThrows(IllegalArgumentException.class, () -> ChildJvm.tell(" ", "x"));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> ChildJvm.tell("result", "{\n}"));
        assertTrue(e.getMessage().contains("one line"), e.getMessage());
    }
}
