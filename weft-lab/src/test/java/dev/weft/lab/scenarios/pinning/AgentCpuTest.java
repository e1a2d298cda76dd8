package dev.weft.lab.scenarios.pinning;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** How {@link AgentCpu} names a child JVM's threads and groups their CPU. */
class AgentCpuTest {

    @Test
    void threadNamesComeFromThreadPrintsNidInDecimalOrHex() {
        String print = String.join(
                "\n",
                "Full thread dump OpenJDK 64-Bit Server VM (25.0.3+9-LTS mixed mode, sharing):",
                "\"main\" #1 [4100] prio=5 os_prio=0 cpu=812.20ms elapsed=4.12s tid=0x00007f nid=4100 waiting on condition",
                "   java.lang.Thread.State: RUNNABLE",
                "\"weft-starvation-clock\" #31 [4131] daemon prio=5 os_prio=0 cpu=3.10ms elapsed=3.90s tid=0x7f nid=4131"
                        + " waiting on condition",
                "\"GC Thread#1\" os_prio=0 cpu=12.00ms elapsed=3.50s tid=0x00007f nid=0x1029 runnable",
                "\"VM Periodic Task Thread\" os_prio=0 cpu=5.00ms elapsed=4.10s tid=0x00007f nid=4102 waiting on condition");
        Map<Long, String> names = AgentCpu.threadNames(print);
        assertEquals(
                Map.of(
                        4100L,
                        "main",
                        4131L,
                        "weft-starvation-clock",
                        0x1029L,
                        "GC Thread#1",
                        4102L,
                        "VM Periodic Task Thread"),
                names);
    }

    @Test
    void numberedThreadsAreOneGroup() {
        assertEquals("GC Thread##", AgentCpu.group("GC Thread#1"));
        assertEquals(AgentCpu.group("ForkJoinPool-1-worker-3"), AgentCpu.group("ForkJoinPool-1-worker-12"));
        assertEquals("weft-starvation-clock", AgentCpu.group("weft-starvation-clock"));
    }
}
