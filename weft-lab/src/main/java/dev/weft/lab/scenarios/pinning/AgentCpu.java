package dev.weft.lab.scenarios.pinning;

import dev.weft.lab.ChildJvm;
import dev.weft.lab.Stats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the weft agent's own threads cost, by thread: the CPU time each thread of a child JVM used
 * while it ran the {@code no-lock} workload ({@link AgentOverhead}'s child, blocks of operations of
 * 1,000 virtual threads) and while it sat idle, without and with {@code -javaagent}, from
 * {@code /proc/<pid>/task/<tid>/schedstat} (nanoseconds on a CPU). CPU time is what a thread
 * used, whatever else ran on the machine, so the figures hold under load where throughput ratios do
 * not (decision 0856). Thread names come from {@code jcmd <pid> Thread.print} ({@code nid} is the
 * Linux thread id), which also names the JVM's own threads (GC, JFR's recorder); a thread it does
 * not list keeps its {@code /proc} name. Linux only.
 *
 * <pre>
 * java -cp "$(cat weft-lab/target/classpath.txt):weft-lab/target/classes" \
 *     dev.weft.lab.scenarios.pinning.AgentCpu [rounds] [operations] [idle_seconds] [agent.jar]
 * </pre>
 *
 * Runs on the JDK of the {@code java} that starts it; {@code rounds} JVMs of each kind (default 3),
 * alternating, each warmed up for 2 s, then {@code operations} operations (default 160, ~2 s) and
 * {@code idle_seconds} idle (default 3). The agent jar is the one on the classpath unless named.
 */
public final class AgentCpu {

    private AgentCpu() {}

    /** A {@code Thread.print} line that names a thread: {@code "name" ... nid=123 ...} (nid in hex before JDK 19). */
    private static final Pattern THREAD_LINE = Pattern.compile("^\"(.*)\" .*\\bnid=(0x[0-9a-fA-F]+|[0-9]+)\\b");

    /** Thread ids to names, from {@code jcmd <pid> Thread.print}'s output. */
    static Map<Long, String> threadNames(String threadPrint) {
        Map<Long, String> names = new HashMap<>();
        for (String line : threadPrint.split("\n")) {
            Matcher m = THREAD_LINE.matcher(line);
            if (m.find()) {
                String nid = m.group(2);
                long tid = nid.startsWith("0x") ? Long.parseLong(nid.substring(2), 16) : Long.parseLong(nid);
                names.put(tid, m.group(1));
            }
        }
        return names;
    }

    /**
     * The group a thread's CPU is counted in: its name with numbers made {@code #} (the GC's
     * workers, the carriers and the compilers are each one group).
     */
    static String group(String name) {
        return name.replaceAll("[0-9]+", "#");
    }

    /** CPU nanoseconds per thread id of process {@code pid}, from {@code /proc}. */
    private static Map<Long, Long> cpu(long pid) throws IOException {
        Map<Long, Long> cpu = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("schedstat"), StandardCharsets.US_ASCII);
                    cpu.put(Long.parseLong(task.getFileName().toString()), Long.parseLong(stat.split(" ")[0]));
                } catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return cpu;
    }

    private static String procName(long pid, long tid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "task", Long.toString(tid), "comm"))
                    .strip();
        } catch (IOException gone) {
            return "(ended)";
        }
    }

    /** CPU nanoseconds by group between two snapshots. */
    private static Map<String, Long> byGroup(
            long pid, Map<Long, String> names, Map<Long, Long> before, Map<Long, Long> after) {
        Map<String, Long> out = new TreeMap<>();
        after.forEach((tid, ns) -> {
            String name = names.computeIfAbsent(tid, t -> procName(pid, t));
            out.merge(group(name), ns - before.getOrDefault(tid, 0L), Long::sum);
        });
        return out;
    }

    private static Map<Long, String> jcmdNames(long pid) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("jcmd " + pid + " Thread.print failed: " + out);
        }
        return threadNames(out);
    }

    /**
     * {@code classpath} without weft-agent's jar: on the class path its relocated classes would be
     * the ones loaded, not those of the jar {@code -javaagent} names.
     */
    static String withoutAgent(String classpath) {
        return java.util.Arrays.stream(classpath.split(java.io.File.pathSeparator))
                .filter(e -> !Path.of(e).getFileName().toString().startsWith("weft-agent-"))
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
    }

    /** One JVM's figures: CPU ns by group while busy and while idle, the seconds of each, the operations. */
    private record Sample(
            Map<String, Long> busy, double busySeconds, int ops, Map<String, Long> idle, double idleSeconds) {}

    private static Sample measure(Path dir, boolean withAgent, Path agent, int round, int ops, int idleSeconds)
            throws Exception {
        String label = "agent-cpu-" + round + (withAgent ? "-on" : "-off");
        ChildJvm child = ChildJvm.builder(label, AgentOverhead.class.getName())
                .classpath(withoutAgent(System.getProperty("java.class.path")))
                .jvmArgs(withAgent ? List.of("-javaagent:" + agent) : List.of())
                .args(List.of("1000", "2000"))
                .log(dir.resolve(label + ".log"))
                .start();
        try {
            child.await(AgentOverhead.READY, Duration.ofSeconds(60));
            long pid = child.process().pid();
            Map<Long, String> names = jcmdNames(pid);
            Thread.sleep(300); // jcmd's attach listener settles
            Map<Long, Long> a = cpu(pid);
            long t0 = System.nanoTime();
            child.send(AgentOverhead.BLOCK + " " + ops);
            for (int i = 0; i < ops; i++) {
                child.await(AgentOverhead.RESULT, Duration.ofSeconds(60));
            }
            Map<Long, Long> b = cpu(pid);
            long t1 = System.nanoTime();
            Thread.sleep(idleSeconds * 1000L);
            Map<Long, Long> c = cpu(pid);
            long t2 = System.nanoTime();
            names.putAll(jcmdNames(pid)); // threads started meanwhile
            return new Sample(
                    byGroup(pid, names, a, b), (t1 - t0) / 1e9, ops, byGroup(pid, names, b, c), (t2 - t1) / 1e9);
        } finally {
            child.stop();
        }
    }

    /** Runs the measurement and prints a table, ms of CPU per second and µs per operation, by thread group. */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int ops = args.length > 1 ? Integer.parseInt(args[1]) : 160;
        int idle = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path agent = args.length > 3
                ? Path.of(args[3])
                : AgentOverhead.agentJar()
                        .orElseThrow(() -> new IllegalStateException(
                                "weft-agent is not a jar on the classpath; name the agent jar as the 4th argument"));
        Path dir = Files.createTempDirectory("weft-agent-cpu-");
        List<Sample> off = new ArrayList<>();
        List<Sample> on = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < 2; i++) {
                boolean withAgent = (r + i) % 2 == 1; // off-on, on-off, ...
                (withAgent ? on : off).add(measure(dir, withAgent, agent, r, ops, idle));
            }
        }
        System.out.printf(
                Locale.ROOT,
                "JDK %s, agent %s, %d JVMs each, %d operations busy, %d s idle; load average %s%n",
                Runtime.version(),
                agent.getFileName(),
                rounds,
                ops,
                idle,
                Files.readString(Path.of("/proc/loadavg")).strip());
        System.out.printf(
                Locale.ROOT,
                "%-40s %10s %10s %10s %10s %12s%n",
                "thread group (median over JVMs)",
                "busy off",
                "busy on",
                "idle off",
                "idle on",
                "on-off us/op");
        TreeSet<String> groups = new TreeSet<>();
        Stream.concat(off.stream(), on.stream()).forEach(s -> {
            groups.addAll(s.busy().keySet());
            groups.addAll(s.idle().keySet());
        });
        double[] totals = new double[5];
        for (String g : groups) {
            double busyOff = median(off, s -> s.busy().getOrDefault(g, 0L) / 1e6 / s.busySeconds());
            double busyOn = median(on, s -> s.busy().getOrDefault(g, 0L) / 1e6 / s.busySeconds());
            double idleOff = median(off, s -> s.idle().getOrDefault(g, 0L) / 1e6 / s.idleSeconds());
            double idleOn = median(on, s -> s.idle().getOrDefault(g, 0L) / 1e6 / s.idleSeconds());
            double perOp = median(on, s -> s.busy().getOrDefault(g, 0L) / 1e3 / s.ops())
                    - median(off, s -> s.busy().getOrDefault(g, 0L) / 1e3 / s.ops());
            double[] row = {busyOff, busyOn, idleOff, idleOn, perOp};
            for (int i = 0; i < row.length; i++) {
                totals[i] += row[i];
            }
            if (Math.max(Math.max(busyOff, busyOn), Math.max(idleOff, idleOn)) >= 0.05) {
                System.out.printf(
                        Locale.ROOT,
                        "%-40s %10.2f %10.2f %10.2f %10.2f %12.1f%n",
                        g,
                        busyOff,
                        busyOn,
                        idleOff,
                        idleOn,
                        perOp);
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%-40s %10.2f %10.2f %10.2f %10.2f %12.1f%n",
                "sum of the medians (ms/s; us/op)",
                totals[0],
                totals[1],
                totals[2],
                totals[3],
                totals[4]);
        System.out.printf(
                Locale.ROOT,
                "operations/s, median: off %.1f, on %.1f%n",
                median(off, s -> s.ops() / s.busySeconds()),
                median(on, s -> s.ops() / s.busySeconds()));
    }

    private static double median(List<Sample> samples, java.util.function.ToDoubleFunction<Sample> f) {
        return Stats.median(samples.stream().mapToDouble(f).toArray());
    }
}
