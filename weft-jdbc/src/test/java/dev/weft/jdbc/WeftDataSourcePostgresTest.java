package dev.weft.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** WeftDataSource against a real PostgreSQL server (pgjdbc), started by the database tier. */
class WeftDataSourcePostgresTest {

    private static WeftDataSource ds(String name, int max) {
        return WeftDataSource.builder(name, Postgres.url())
                .maxSize(max)
                .maxWait(Duration.ofSeconds(20))
                .build();
    }

    private static long scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String text(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Backends of this database other than the asking one, opened by the pool named in application_name. */
    /**
     * The server's sessions whose client named itself {@code app} (pgjdbc's ApplicationName): a
     * pool's own, not those of an earlier test still closing.
     */
    private static long sessions(String app) {
        try (Connection c = DriverManager.getConnection(Postgres.url())) {
            return scalar(c, "select count(*) from pg_stat_activity where application_name = '" + app + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("counting the sessions of " + app + ": " + e, e);
        }
    }

    @Test
    void queriesRunAndConnectionsAreReused() throws Exception {
        try (WeftDataSource ds = ds("pg-basic", 2)) {
            long pid;
            try (Connection c = ds.getConnection()) {
                assertEquals(1, scalar(c, "select 1"));
                pid = scalar(c, "select pg_backend_pid()");
            }
            try (Connection c = ds.getConnection()) {
                assertEquals(pid, scalar(c, "select pg_backend_pid()"), "the same physical connection");
            }
            assertEquals(1, ds.stats().created());
        }
    }

    @Test
    void whatABorrowerChangedIsPutBack() throws Exception {
        try (WeftDataSource ds = ds("pg-reset", 1)) {
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("drop table if exists weft_reset; create table weft_reset (x int)");
                s.execute("create schema if not exists weft_other");
            }
            Statement leftOpen;
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                c.setSchema("weft_other");
                leftOpen = c.createStatement();
                leftOpen.execute("insert into public.weft_reset values (1)");
            } // returned with an open transaction
            assertTrue(leftOpen.isClosed(), "statements left open are closed on return");
            try (Connection c = ds.getConnection()) {
                c.setReadOnly(true);
                assertTrue(c.isReadOnly());
            }
            try (Connection c = ds.getConnection()) {
                assertTrue(c.getAutoCommit());
                assertEquals(Connection.TRANSACTION_READ_COMMITTED, c.getTransactionIsolation());
                assertFalse(c.isReadOnly());
                assertEquals("public", c.getSchema());
                assertEquals(0, scalar(c, "select count(*) from weft_reset"), "the open transaction was rolled back");
                assertEquals("read committed", text(c, "show transaction_isolation"));
                assertEquals("off", text(c, "show transaction_read_only"));
            }
            assertEquals(1, ds.stats().created());
        }
    }

    @Test
    void aTransactionOpenedOnTheUnwrappedConnectionIsRolledBack() throws Exception {
        try (WeftDataSource ds = ds("pg-unwrap", 1)) {
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("drop table if exists weft_unwrap; create table weft_unwrap (x int)");
            }
            try (Connection c = ds.getConnection()) {
                Connection physical = (Connection) c.unwrap(org.postgresql.PGConnection.class);
                physical.setAutoCommit(false);
                try (Statement s = physical.createStatement()) {
                    s.execute("insert into weft_unwrap values (1)");
                }
            } // returned with a transaction the handle never saw begin
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                Connection physical = ((Statement) s.unwrap(org.postgresql.PGStatement.class)).getConnection();
                physical.setAutoCommit(false);
                s.execute("insert into weft_unwrap values (2)");
            } // and one begun through a statement's unwrapped connection
            try (Connection c = ds.getConnection()) {
                assertTrue(c.getAutoCommit());
                assertEquals(0, scalar(c, "select count(*) from weft_unwrap"), "both transactions were rolled back");
            }
            assertEquals(1, ds.stats().created());
        }
    }

    @Test
    void aClosedConnectionCannotBeUsed() throws Exception {
        try (WeftDataSource ds = ds("pg-closed", 1)) {
            Connection c = ds.getConnection();
            Statement st = c.createStatement();
            assertEquals(c, st.getConnection());
            c.close();
            c.close();
            assertTrue(c.isClosed());
            SQLException e = assertThrows(SQLException.class, c::createStatement);
            assertTrue(e.getMessage().contains("already closed"), e.getMessage());
            assertEquals("08003", e.getSQLState());
        }
    }

    @Test
    void aKilledBackendIsNeverHandedOutAgain() throws Exception {
        try (WeftDataSource ds = WeftDataSource.builder("pg-killed", Postgres.url())
                .maxSize(2)
                .validateAfter(Duration.ZERO)
                .build()) {
            long pid;
            try (Connection c = ds.getConnection()) {
                pid = scalar(c, "select pg_backend_pid()");
            }
            try (Connection admin = DriverManager.getConnection(Postgres.url())) {
                assertEquals(
                        1,
                        scalar(
                                admin,
                                "select count(*) from pg_terminate_backend(" + pid + ") where pg_terminate_backend"));
            }
            Thread.sleep(100);
            try (Connection c = ds.getConnection()) { // isValid found the dead one and a fresh one came
                assertEquals(1, scalar(c, "select 1"));
                assertTrue(scalar(c, "select pg_backend_pid()") != pid);
            }
            assertEquals(1, ds.stats().destroyed());
        }
    }

    @Test
    void aConnectionErrorDestroysTheConnectionOnReturn() throws Exception {
        try (WeftDataSource ds = ds("pg-fatal", 1)) {
            Connection c = ds.getConnection();
            long pid = scalar(c, "select pg_backend_pid()");
            try (Connection admin = DriverManager.getConnection(Postgres.url())) {
                scalar(admin, "select count(*) from pg_terminate_backend(" + pid + ")");
            }
            SQLException e = assertThrows(SQLException.class, () -> scalar(c, "select 1"));
            assertTrue(WeftDataSourceTest.isFatal(e), e.getSQLState() + " " + e);
            c.close();
            assertEquals(1, ds.stats().destroyed());
            try (Connection fresh = ds.getConnection()) {
                assertEquals(1, scalar(fresh, "select 1"));
            }
        }
    }

    @Test
    void aTimeoutNamesThePoolAndItsSize() throws Exception {
        try (WeftDataSource ds = WeftDataSource.builder("pg-timeout", Postgres.url())
                        .maxSize(1)
                        .maxWait(Duration.ofMillis(100))
                        .build();
                Connection held = ds.getConnection()) {
            SQLTransientConnectionException e = assertThrows(SQLTransientConnectionException.class, ds::getConnection);
            assertTrue(
                    e.getMessage().contains("pool \"pg-timeout\"")
                            && e.getMessage().contains("maxSize 1"),
                    e.getMessage());
            assertEquals(1, scalar(held, "select 1"));
        }
    }

    @Test
    void theServerRestartingUnderLoad() throws Exception {
        String app = "weft-pg-restart-test";
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger okAfter = new AtomicInteger();
        AtomicBoolean restarted = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        Map<Long, Boolean> inUse = new ConcurrentHashMap<>();
        AtomicInteger shared = new AtomicInteger();
        try (WeftDataSource ds = WeftDataSource.builder(
                        "pg-restart",
                        Postgres.url() + (Postgres.url().contains("?") ? "&" : "?") + "ApplicationName=" + app)
                .maxSize(8)
                .maxWait(Duration.ofSeconds(5))
                .build()) {
            List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                ts.add(Thread.ofVirtual().start(() -> {
                    while (!stop.get()) {
                        boolean after = restarted.get();
                        try (Connection c = ds.getConnection()) {
                            long pid = scalar(c, "select pg_backend_pid()");
                            if (inUse.putIfAbsent(pid, true) != null) {
                                shared.incrementAndGet();
                            }
                            try {
                                scalar(c, "select count(*) from pg_sleep(0.005)");
                            } finally {
                                inUse.remove(pid);
                            }
                            ok.incrementAndGet();
                            if (after) {
                                okAfter.incrementAndGet();
                            }
                        } catch (SQLException e) {
                            errors.add(e);
                        } catch (Throwable t) {
                            errors.add(t);
                        }
                    }
                }));
            }
            // Awaited, not slept for: a loaded machine may take more than a fixed second to connect.
            AdmissionPostgresTest.awaitTrue(() -> ok.get() > 0, "queries ran before the restart");
            assertTrue(sessions(app) > 0, "the pool's sessions are found by their name (so the last check can fail)");
            Postgres.restart();
            Thread.sleep(500);
            restarted.set(true);
            long guard = System.nanoTime() + Duration.ofSeconds(60).toNanos(); // a hang guard, not a speed goal
            while (okAfter.get() <= 100 && System.nanoTime() < guard) {
                Thread.sleep(10);
            }
            stop.set(true);
            for (Thread t : ts) {
                t.join();
            }
            assertTrue(
                    okAfter.get() > 100,
                    "the pool refilled after the restart: " + okAfter.get() + " queries; " + ds.stats());
            assertEquals(0, shared.get(), "one backend used by two borrowers at once");
            for (Throwable t : errors) {
                SQLException e = assertInstanceOf(SQLException.class, t, "only SQLExceptions reach borrowers");
                assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
            }
            assertEquals(0, ds.stats().inUse());
            assertTrue(ds.stats().open() <= 8);
        }
        // A closed connection's server process ends a moment later, longer on a loaded machine.
        AdmissionPostgresTest.awaitTrue(() -> sessions(app) == 0, "every connection of the pool was closed");
    }
}
