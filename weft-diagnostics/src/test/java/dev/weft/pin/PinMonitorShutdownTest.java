package dev.weft.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A monitor closed from a shutdown hook, as Spring closes its beans when the JVM exits: before the
 * fix, stop waited for a JFR marker that JFR's own shutdown had cut off, held the JVM's exit for
 * {@link PinMonitor#DELIVERY_TIMEOUT} (30 s) and then threw. Now it returns its report at once.
 */
class PinMonitorShutdownTest {

    @Test
    void notShuttingDownWhileTestsRun() {
        assertFalse(PinMonitor.jvmShuttingDown());
    }

    @Test
    void stopFromAShutdownHookReturnsItsReportWithoutWaitingForJfr() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(
                        java.toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        CloseInShutdownHook.class.getName())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean ended = p.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        assertTrue(ended, "the JVM did not exit:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("stopped in the hook: pins="), out);
        assertFalse(out.contains("did not deliver"), out);
    }

    /** The child: a monitor that is closed by a shutdown hook when main returns. */
    static final class CloseInShutdownHook {
        public static void main(String[] args) throws Exception {
            PinMonitor monitor = PinMonitor.builder().threshold(Duration.ZERO).start();
            PinProbe.pinVirtualThread(Duration.ofMillis(5));
            monitor.report(); // the stream works before shutdown
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    // Hooks run in parallel, in no set order: let JFR's own hook end its
                    // recordings first, as it does while Spring is still closing other beans.
                    Thread.sleep(2_000);
                    PinReport last = monitor.stop();
                    System.out.println("stopped in the hook: pins=" + last.pins());
                } catch (RuntimeException | InterruptedException e) {
                    System.out.println("stop failed in the hook: " + e);
                    Runtime.getRuntime().halt(3);
                }
            }));
        }
    }
}
