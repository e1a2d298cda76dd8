package dev.weft.agent;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * An application that knows nothing of the agent: five virtual threads each block 30 ms in a class
 * initializer (a pin on every JDK), and one pin through the application's own weft (its
 * dev.weft.pin.PinProbe, beside the agent's relocated copy). Then it reads the agent's MBean from
 * its own platform MBean server until it counts the pins, prints the attributes, waits for the
 * agent's summary to be logged (the interval given as its argument, twice), and exits.
 */
final class AgentWorkload {

    private AgentWorkload() {}

    static void block() {
        try {
            Thread.sleep(30);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static final class Init1 {
        static {
            block();
        }

        static void touch() {}
    }

    static final class Init2 {
        static {
            block();
        }

        static void touch() {}
    }

    static final class Init3 {
        static {
            block();
        }

        static void touch() {}
    }

    static final class Init4 {
        static {
            block();
        }

        static void touch() {}
    }

    static final class Init5 {
        static {
            block();
        }

        static void touch() {}
    }

    public static void main(String[] args) throws Exception {
        Duration interval = Duration.ofMillis(Long.parseLong(args[0]));
        for (Runnable touch : new Runnable[] {Init1::touch, Init2::touch, Init3::touch, Init4::touch, Init5::touch}) {
            Thread.ofVirtual().start(touch).join();
        }
        dev.weft.pin.PinProbe.pinVirtualThread(Duration.ofMillis(30)); // the application's own weft
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName agent = new ObjectName("dev.weft:type=Agent");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long pins = 0;
        while (pins >= 0 && pins < 6 && System.nanoTime() < deadline) { // -1: the pin monitor is off
            Thread.sleep(100);
            pins = (Long) server.getAttribute(agent, "Pins");
        }
        System.out.println("mbean class=" + server.getObjectInstance(agent).getClassName());
        for (String a : new String[] {
            "Pins", "PinnedMillis", "StarvationEpisodes", "Detectors", "ThresholdMillis", "IntervalMillis"
        }) {
            System.out.println("mbean " + a + "=" + server.getAttribute(agent, a));
        }
        System.out.println("report=" + ((String) server.getAttribute(agent, "Report")).replace('\n', '|'));
        System.out.flush();
        Thread.sleep(interval.multipliedBy(2).plusMillis(1_500).toMillis()); // the summary after the pins
        System.out.println("done");
    }
}
