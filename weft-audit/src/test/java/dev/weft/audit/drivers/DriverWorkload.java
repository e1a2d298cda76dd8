package dev.weft.audit.drivers;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Recording;

/**
 * The workload {@code DriverPinsDatabaseTest} runs in a JVM of its own (JDK 21, the driver's jar
 * on the classpath, nothing of weft's): from virtual threads, connect, query, run a prepared
 * statement and a transaction, under a JFR recording of every pinned virtual thread
 * ({@code jdk.VirtualThreadPinned}, threshold 0, with stacks) written to a file.
 *
 * <p>Arguments: the JDBC URL, the recording file, the number of virtual threads, rounds per thread.
 */
public final class DriverWorkload {

    private DriverWorkload() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        Path out = Path.of(args[1]);
        int threads = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        String table = "weft_pins_" + ProcessHandle.current().pid();
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, name VARCHAR(40))");
        }
        try (Recording r = new Recording()) {
            r.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            r.setToDisk(true);
            r.start();
            List<Thread> started = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < threads; t++) {
                int base = t * rounds;
                started.add(Thread.ofVirtual().name("workload-" + t).start(() -> {
                    try {
                        for (int i = 0; i < rounds; i++) {
                            round(url, table, base + i);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread t : started) {
                t.join();
            }
            r.stop();
            r.dump(out);
            if (!failures.isEmpty()) {
                failures.getFirst().printStackTrace();
                System.exit(1);
            }
        } finally {
            try (Connection c = DriverManager.getConnection(url);
                    Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + table);
            }
        }
    }

    /** Connect, query, prepared statement, transaction. */
    private static void round(String url, String table, int id) throws Exception {
        try (Connection c = DriverManager.getConnection(url)) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT 1")) {
                rs.next();
            }
            try (PreparedStatement p = c.prepareStatement("SELECT ? + 1")) {
                p.setInt(1, id);
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                }
            }
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table + " (id, name) VALUES (?, ?)")) {
                p.setInt(1, id);
                p.setString(2, "row " + id);
                p.executeUpdate();
            }
            c.commit();
            c.setAutoCommit(true);
        }
    }
}
