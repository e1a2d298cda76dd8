package dev.weft.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.audit.ClassScanner.Call;
import dev.weft.audit.ClassScanner.ClassSummary;
import dev.weft.audit.ClassScanner.MethodSummary;
import dev.weft.audit.drivers.DriverWorkload;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit judged against the runtime on real drivers and real databases (the database tier:
 * build/test/database.sh starts PostgreSQL and MariaDB and copies the driver jars). Each driver
 * runs {@link DriverWorkload} (connect, query, prepared statement, transaction, from virtual
 * threads) on JDK 21 under JFR ({@code jdk.VirtualThreadPinned}, threshold 0). A pin's
 * <b>sites</b> are the frames in the driver's own code that hold a monitor while it is pinned (a
 * {@code synchronized} method, or a call inside a {@code synchronized} block, as the audit's scanner
 * reads the driver's bytecode): the innermost is the lock closest to the blocking read, the outer
 * ones (a connection's mutex) pin just as well. Recall is the share of sites the audit reports, at
 * {@code --target-jdk 21}, as an error or a warning at that method and line; extra findings are
 * the driver's {@code synchronized-blocking} errors and warnings at no site the workload pinned on.
 *
 * <p>Settings: {@code -Dweft.pg.url}, {@code -Dweft.mysql.url}, {@code -Dweft.jdk21.home} (a JDK
 * 21 runtime), {@code -Dweft.drivers.dir} (the jars). The table goes to standard output and to
 * {@code target/driver-pins.md}.
 */
class DriverPinsDatabaseTest {

    /** One driver: its jar, which database, whether it is the old (pinning) or a newer version. */
    record Driver(String name, String version, String jar, String urlProperty, boolean old) {}

    private static final List<Driver> DRIVERS = List.of(
            new Driver("pgjdbc", "42.5.0", "postgresql-42.5.0.jar", "weft.pg.url", true),
            new Driver("MySQL Connector/J", "8.0.33", "mysql-connector-j-8.0.33.jar", "weft.mysql.url", true),
            new Driver("pgjdbc", "42.7.14", "postgresql-42.7.14.jar", "weft.pg.url", false),
            new Driver("MySQL Connector/J", "9.1.0", "mysql-connector-j-9.1.0.jar", "weft.mysql.url", false));

    private static final List<String> TABLE = new ArrayList<>();

    @TempDir
    static Path dir;

    @Test
    void pgjdbc425() throws Exception {
        check(DRIVERS.get(0));
    }

    @Test
    void connectorJ8033() throws Exception {
        check(DRIVERS.get(1));
    }

    @Test
    void pgjdbc427() throws Exception {
        check(DRIVERS.get(2));
    }

    @Test
    void connectorJ9() throws Exception {
        check(DRIVERS.get(3));
    }

    @AfterAll
    static void table() throws Exception {
        List<String> lines = new ArrayList<>();
        lines.add(
                "| driver | version | pins | pinned sites | reported | missed | extra findings (errors + warnings) | audit errors |");
        lines.add("|---|---|---|---|---|---|---|---|");
        lines.addAll(TABLE);
        String text = String.join("\n", lines) + "\n";
        System.out.print(text);
        Files.writeString(Path.of("target/driver-pins.md"), text);
    }

    private static String setting(String name) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException(
                    "-D" + name + " is not set: run ./weft test --tier database (build/test/database.sh"
                            + " starts the databases, fetches JDK 21 and copies the drivers)");
        }
        return v;
    }

    private void check(Driver d) throws Exception {
        Path jar = Path.of(setting("weft.drivers.dir"), d.jar());
        Path recording = dir.resolve(d.jar() + ".jfr");
        run(jar, setting(d.urlProperty()), recording);

        Map<String, ClassSummary> classes = classes(jar);
        List<RecordedEvent> pins = RecordingFile.readAllEvents(recording).stream()
                .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned"))
                .toList();
        Map<String, List<String>> sites = new TreeMap<>(); // site -> an example stack
        int withoutDriverMonitor = 0;
        for (RecordedEvent e : pins) {
            List<String> held = monitorsHeld(e, classes);
            if (held.isEmpty()) {
                withoutDriverMonitor++;
            }
            for (String site : held) {
                sites.putIfAbsent(
                        site,
                        e.getStackTrace().getFrames().stream()
                                .limit(40)
                                .map(f -> f.getMethod().getType().getName() + "."
                                        + f.getMethod().getName() + ":" + f.getLineNumber())
                                .toList());
            }
        }

        AuditReport report = Auditor.forTargetJdk(21).audit(List.of(jar.toString()));
        Set<String> reported = new TreeSet<>();
        Set<String> extra = new TreeSet<>();
        for (Finding f : report.findings()) {
            if (f.severity() == Severity.INFO) {
                continue;
            }
            String at = f.className() + "." + f.member() + f.descriptor() + ":" + f.line();
            if (sites.containsKey(at)) {
                reported.add(at);
            } else if (f.rule() == Rule.SYNCHRONIZED_BLOCKING) {
                extra.add(at);
            }
        }
        Set<String> missed = new TreeSet<>(sites.keySet());
        missed.removeAll(reported);
        int errors = report.counts().get(Severity.ERROR);
        TABLE.add(String.format(
                Locale.ROOT,
                "| %s | %s | %d | %d | %d | %d | %d | %d |",
                d.name(),
                d.version(),
                pins.size(),
                sites.size(),
                reported.size(),
                missed.size(),
                extra.size(),
                errors));
        StringBuilder detail = new StringBuilder(d.name() + " " + d.version() + ": " + pins.size() + " pins, "
                + withoutDriverMonitor + " of them with no monitor of the driver's held\n");
        for (String site : sites.keySet()) {
            detail.append(reported.contains(site) ? "reported " : "missed ")
                    .append(site)
                    .append('\n');
        }
        for (String m : missed) {
            detail.append("missed ").append(m).append('\n');
            sites.get(m).forEach(f -> detail.append("    at ").append(f).append('\n'));
        }
        System.out.print(detail);

        if (d.old()) {
            assertTrue(
                    !sites.isEmpty(),
                    d + ": the workload pinned at no site of the driver's; nothing to compare\n" + detail);
            assertEquals(Set.of(), missed, d + ": every site the runtime pins on is reported\n" + detail);
        } else {
            assertEquals(0, pins.size(), d + ": a newer driver pins nowhere in the same workload\n" + detail);
        }
    }

    /** Runs the workload in a JVM of JDK 21 with the driver on its classpath, recording pins to {@code recording}. */
    private static void run(Path driver, String url, Path recording) throws Exception {
        String java = Path.of(setting("weft.jdk21.home"), "bin", "java").toString();
        Path workload = Path.of(DriverWorkload.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path log = dir.resolve(driver.getFileName() + ".log");
        Process p = new ProcessBuilder(
                        java,
                        "-cp",
                        workload + File.pathSeparator + driver,
                        DriverWorkload.class.getName(),
                        url,
                        recording.toString(),
                        "4",
                        "5")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(
                    "the workload on " + driver.getFileName() + " did not end in 180 s:\n" + Files.readString(log));
        }
        assertEquals(
                0, p.exitValue(), "the workload on " + driver.getFileName() + " failed:\n" + Files.readString(log));
    }

    /** The driver's classes as the audit's scanner reads them, by internal name. */
    private static Map<String, ClassSummary> classes(Path jar) throws Exception {
        ClassSource source = new ClassSource(21);
        source.add(jar.toString());
        Map<String, ClassSummary> classes = new HashMap<>();
        for (ClassSource.ClassFile f : source.classes()) {
            ClassSummary c = ClassScanner.scan(f.bytes(), f.input());
            classes.put(c.name(), c);
        }
        return classes;
    }

    /**
     * Every frame of the driver's that holds a monitor while the thread is pinned, innermost
     * first, as {@code class.methodDESC:line}: each is a synchronized method or block the thread
     * blocked in, a site the audit should report.
     */
    private static List<String> monitorsHeld(RecordedEvent pin, Map<String, ClassSummary> classes) {
        List<String> held = new ArrayList<>();
        for (RecordedFrame f : pin.getStackTrace().getFrames()) {
            String owner = f.getMethod().getType().getName().replace('.', '/');
            ClassSummary c = classes.get(owner);
            if (c == null) {
                continue;
            }
            for (MethodSummary m : c.methods()) {
                if (!m.name().equals(f.getMethod().getName())
                        || !m.desc().equals(f.getMethod().getDescriptor())) {
                    continue;
                }
                boolean holds = (m.access() & org.objectweb.asm.Opcodes.ACC_SYNCHRONIZED) != 0;
                for (Call call : m.calls()) {
                    holds |= call.line() == f.getLineNumber() && call.inMonitor();
                }
                if (holds) {
                    held.add(owner.replace('/', '.') + "." + m.name() + m.desc() + ":" + f.getLineNumber());
                }
            }
        }
        return held;
    }
}
