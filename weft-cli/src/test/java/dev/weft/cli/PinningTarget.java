package dev.weft.cli;

import dev.weft.pin.PinProbe;
import java.time.Duration;

/**
 * A JVM for {@code weft pins} to record: it pins a virtual thread for 5 ms every 20 ms (blocking in
 * a class initializer) until its standard input closes, or for 2 minutes at most, then exits.
 */
public final class PinningTarget {

    private PinningTarget() {}

    public static void main(String[] args) throws Exception {
        Thread pinner = Thread.ofPlatform().daemon(true).name("pinner").start(() -> {
            try {
                while (true) {
                    PinProbe.pinVirtualThread(Duration.ofMillis(5));
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread.ofPlatform().daemon(true).name("watchdog").start(() -> {
            try {
                Thread.sleep(Duration.ofMinutes(2));
            } catch (InterruptedException e) {
                return;
            }
            System.exit(3); // the test that started this JVM is gone
        });
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() != -1) {
            // wait for the test to close our input
        }
        pinner.interrupt();
    }
}
