package dev.weft.jdbc;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.jdbc.stub.StubConnection;
import dev.weft.jdbc.stub.StubDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * HikariCP's own tests (brettwooldridge/HikariCP, src/test/java/com/zaxxer/hikari/pool, read at
 * 604d7d58) whose behaviour weft promises too, ported to weft over the stub driver
 * (dev.weft.jdbc.stub). Timings are scaled down and only lower bounds on elapsed time are
 * asserted (HikariCP also asserts upper bounds, which fail on a loaded 2-core machine).
 *
 * <p>Ported here:
 * <ul>
 *   <li>TestConnectionTimeoutRetry: testConnectionRetries, testConnectionRetries2,
 *       testConnectionRetries3, testConnectionRetries5, testConnectionIdleFill;</li>
 *   <li>ShutdownTest: testShutdown1 (close while borrowers wait on slow creation),
 *       testAfterShutdown, testThreadedShutdown;</li>
 *   <li>StatementTest: testStatementClose, testAutoStatementClose,
 *       testStatementResultSetProxyClose, testDoubleStatementClose, testOutOfOrderStatementClose;</li>
 *   <li>TestConnections: testMaxLifetime, testDoubleClose, testEviction (softEvictConnections is
 *       weft's evictIdle), testMaximumPoolLimit, testMinimumIdleZero;</li>
 *   <li>TestValidation (behaviour, not its config checks): an idle connection that fails
 *       validation is replaced, never handed out;</li>
 *   <li>ConcurrentCloseConnectionTest: connections closed from many threads at once.</li>
 * </ul>
 * Ported elsewhere: TestConcurrentBag is weft-pool's HandOffTest and HandOffStressTest (the
 * kernel alone); UnwrapTest, TestProxies, ExceptionTest, ConnectionStateTest and IsolationTest are
 * WeftConnectionTest (unwrap, wrappers answering themselves, connection-level errors, the reset of
 * auto-commit / isolation / read-only / catalog / schema); TestPropertySetter, TestSealedConfig and
 * JdbcDriverTest are WeftDataSourceBeanTest (Properties, setters refused after start, driver
 * class names); PostgresTest is WeftDataSourcePostgresTest (database tier).
 *
 * <p>Left out, and why: the metrics trackers (Dropwizard, Prometheus, Micrometer), TestMetrics and
 * MetricsTrackerTest (weft's meters are weft-micrometer's WeftPoolMetrics, tested there); TestMBean
 * and TestJNDI, TestSuspendResume / testSuspendResume*, testKeepalive*, connectionTestQuery and
 * connectionInitSql tests, RequestBoundariesTest, testInitializationFailure* and
 * TestIsRunning (HikariCP features weft does not have: decision 0605 says which and why);
 * TestJavassistCodegen (HikariCP's proxy generator; weft's is checked by
 * WrappersAreGeneratedTest); OSGiBundleTest, TestHibernate, HikariConfigTest (HikariCP's own
 * configuration class and integrations); RampUpDown and ConnectionPoolSizeVsThreadsTest (manual
 * load experiments, the lab's job); TestSaturatedPool830 and ConnectionRaceConditionTest (their
 * bug's shape, a borrower racing the housekeeper's eviction, cannot arise: eviction takes a
 * connection only by the hand-off's CAS from idle, checked by HandOffStressTest); MiscTest
 * (HikariCP's log writer and leak-task internals; weft's leak reports are PoolTest's).
 */
class HikariPortedTest {

    private static WeftDataSource.Builder pool(StubDataSource stub, int max) {
        return WeftDataSource.builder("ported", stub).maxSize(max).maxWait(Duration.ofSeconds(10));
    }

    private static void await(String what, BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!cond.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "timed out waiting for " + what);
            Thread.sleep(5);
        }
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    // ---------------------------------------------------------------- TestConnectionTimeoutRetry

    @Test
    void connectionRetriesWaitTheWholeTimeoutWhenTheDatabaseRefuses() {
        StubDataSource stub = new StubDataSource();
        stub.failNextConnects.set(Integer.MAX_VALUE);
        try (WeftDataSource ds = pool(stub, 1).maxWait(Duration.ofMillis(500)).build()) {
            long start = System.nanoTime();
            SQLTransientConnectionException e = assertThrows(SQLTransientConnectionException.class, ds::getConnection);
            assertTrue(millisSince(start) >= 500, "waited maxWait: " + millisSince(start) + " ms");
            assertTrue(e.getMessage().contains("connection refused"), "the last failure is named: " + e.getMessage());
            assertTrue(ds.stats().createFailures() > 1, "it retried: " + ds.stats());
        }
    }

    @Test
    void connectionRetriesSucceedOnceTheDatabaseComesBack() throws Exception {
        StubDataSource stub = new StubDataSource();
        stub.failNextConnects.set(Integer.MAX_VALUE);
        try (WeftDataSource ds = pool(stub, 1).build()) {
            // Taken before the thread that brings the database back starts: taken after, a stall of
            // this thread between the two would shorten what the bound below measures.
            long start = System.nanoTime();
            Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException ignored) {
                    // the test ended first
                }
                stub.failNextConnects.set(0);
            });
            try (Connection c = ds.getConnection()) {
                assertTrue(millisSince(start) >= 250, "not before the database came back");
            }
        }
    }

    @Test
    void aWaiterGetsTheConnectionAnotherBorrowerReturns() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 2).build()) {
            Connection c1 = ds.getConnection();
            Connection c2 = ds.getConnection();
            closeLater(c1, 300);
            long start = System.nanoTime();
            try (Connection c3 = ds.getConnection()) {
                assertTrue(millisSince(start) >= 250, "waited for the return");
            }
            c2.close();
            assertEquals(2, stub.opened.get(), "no third connection: the returned one was handed on");
        }
    }

    @Test
    void aReturnServesTheWaiterWhileTheDatabaseRefusesNewConnections() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 2).maxWait(Duration.ofSeconds(10)).build()) {
            Connection c1 = ds.getConnection();
            stub.failNextConnects.set(Integer.MAX_VALUE);
            closeLater(c1, 250);
            long start = System.nanoTime();
            try (Connection c2 = ds.getConnection()) {
                assertTrue(millisSince(start) >= 200, "waited for the return, not a new connection");
            }
        }
    }

    @Test
    void minIdleIsFilledOnceConnectionsCanBeMade() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 10).minIdle(5).build()) {
            await("5 idle", () -> ds.stats().idle() == 5);
            Connection c1 = ds.getConnection();
            Connection c2 = ds.getConnection();
            await("back to 5 idle while 2 are out", () -> ds.stats().idle() == 5);
            assertEquals(7, stub.opened.get());
            c1.close();
            c2.close();
            assertEquals(7, ds.stats().idle());
        }
    }

    private static void closeLater(Connection c, long millis) {
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(millis);
                c.close();
            } catch (InterruptedException | SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    // ---------------------------------------------------------------- ShutdownTest

    @Test
    void closeWhileBorrowersWaitOnSlowCreationLeavesNothingOpen() throws Exception {
        StubDataSource stub = new StubDataSource();
        stub.connectMillis = 100;
        WeftDataSource ds = pool(stub, 10)
                .maxWait(Duration.ofSeconds(30))
                .closeTimeout(Duration.ofSeconds(2))
                .build();
        AtomicInteger failed = new AtomicInteger();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ts.add(Thread.ofVirtual().start(() -> {
                try (Connection c = ds.getConnection()) {
                    Thread.sleep(1000);
                } catch (SQLException e) {
                    failed.incrementAndGet();
                } catch (InterruptedException ignored) {
                    // not interrupted here
                }
            }));
        }
        await("some connections open", () -> stub.opened.get() > 0);
        ds.close();
        for (Thread t : ts) {
            t.join();
        }
        assertEquals(0, ds.stats().inUse());
        assertEquals(0, ds.stats().idle());
        assertEquals(0, stub.open.size(), "every physical connection closed");
        assertTrue(ds.isClosed());
    }

    @Test
    void getConnectionAfterCloseFails() {
        WeftDataSource ds = pool(new StubDataSource(), 2).build();
        ds.close();
        SQLNonTransientConnectionException e =
                assertThrows(SQLNonTransientConnectionException.class, ds::getConnection);
        assertEquals("08003", e.getSQLState());
    }

    @Test
    void closeWithBorrowersInFlightOnManyThreadsLeavesNothingOpen() throws Exception {
        StubDataSource stub = new StubDataSource();
        WeftDataSource ds = pool(stub, 4).closeTimeout(Duration.ofSeconds(5)).build();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            ts.add(Thread.ofVirtual().start(() -> {
                while (true) { // until close() makes getConnection fail
                    try (Connection c = ds.getConnection();
                            Statement s = c.createStatement()) {
                        s.executeQuery("select 1").close();
                    } catch (SQLException e) {
                        return; // closed under us: what this test wants
                    }
                }
            }));
        }
        Thread.sleep(300);
        ds.close();
        for (Thread t : ts) {
            t.join();
        }
        assertEquals(0, stub.open.size(), "every physical connection closed after close()");
    }

    // ---------------------------------------------------------------- StatementTest

    @Test
    void statementCloseIsTrackedAndStatementsCloseWithTheConnection() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 1).build()) {
            Statement kept;
            StubConnection physical;
            try (Connection c = ds.getConnection()) {
                physical = c.unwrap(StubConnection.class);
                Statement closed = c.createStatement();
                closed.close();
                assertTrue(closed.isClosed());
                kept = c.createStatement();
                assertFalse(kept.isClosed());
            }
            assertTrue(kept.isClosed(), "closed with the connection (testAutoStatementClose)");
            assertEquals(2, physical.statementsClosed.get());
        }
    }

    @Test
    void aResultSetAnswersItsStatementAndClosesWithIt() throws Exception {
        try (WeftDataSource ds = pool(new StubDataSource(), 1).build();
                Connection c = ds.getConnection()) {
            Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("select 1");
            assertSame(s, rs.getStatement());
            s.close();
            assertTrue(s.isClosed());
        }
    }

    @Test
    void closingAStatementTwiceOrOutOfOrderIsHarmless() throws Exception {
        try (WeftDataSource ds = pool(new StubDataSource(), 1).build();
                Connection c = ds.getConnection()) {
            Statement a = c.createStatement();
            Statement b = c.createStatement();
            a.close();
            a.close(); // testDoubleStatementClose
            b.close();
            Statement d = c.prepareStatement("x");
            Statement e = c.prepareStatement("y");
            d.close(); // testOutOfOrderStatementClose: first made, first closed
            e.close();
            assertTrue(d.isClosed() && e.isClosed());
        }
    }

    // ---------------------------------------------------------------- TestConnections

    @Test
    void aConnectionPastMaxLifetimeIsReplaced() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds =
                pool(stub, 1).maxLifetime(Duration.ofMillis(200)).build()) {
            StubConnection first;
            try (Connection c = ds.getConnection()) {
                first = c.unwrap(StubConnection.class);
            }
            Thread.sleep(300);
            await("the old one retired", first::isClosed);
            try (Connection c = ds.getConnection()) {
                assertNotSame(first, c.unwrap(StubConnection.class));
            }
            assertTrue(stub.opened.get() >= 2);
        }
    }

    @Test
    void closingAConnectionTwiceIsHarmless() throws Exception {
        try (WeftDataSource ds = pool(new StubDataSource(), 1).build()) {
            Connection c = ds.getConnection();
            c.close();
            assertDoesNotThrow(c::close);
            assertEquals(1, ds.stats().idle());
        }
    }

    @Test
    void evictIdleClosesIdleConnectionsAndLeavesBorrowedOnes() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 5).minIdle(5).build()) {
            await("5 idle", () -> ds.stats().idle() == 5);
            try (Connection held = ds.getConnection()) {
                int evicted = ds.pool().evictIdle();
                assertTrue(evicted >= 4, "the idle ones: " + evicted);
                assertFalse(held.isClosed(), "a borrowed connection is untouched");
                assertTrue(held.createStatement() != null);
            }
        }
    }

    @Test
    void manyThreadsNeverOpenMoreThanMaxSize() throws Exception {
        StubDataSource stub = new StubDataSource();
        stub.connectMillis = 20;
        AtomicInteger over = new AtomicInteger();
        try (WeftDataSource ds = pool(stub, 4).build()) {
            List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                ts.add(Thread.ofVirtual().start(() -> {
                    for (int k = 0; k < 20; k++) {
                        try (Connection c = ds.getConnection()) {
                            if (stub.open.size() > 4) {
                                over.incrementAndGet();
                            }
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }));
            }
            for (Thread t : ts) {
                t.join();
            }
            assertEquals(0, over.get());
            assertTrue(stub.opened.get() <= 4, "opened " + stub.opened.get());
        }
    }

    @Test
    void withMinIdleZeroNothingOpensUntilAsked() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 5).minIdle(0).build()) {
            Thread.sleep(100);
            assertEquals(0, stub.opened.get());
            ds.getConnection().close();
            assertEquals(1, stub.opened.get());
            assertEquals(1, ds.stats().idle());
        }
    }

    // ---------------------------------------------------------------- TestValidation

    @Test
    void anIdleConnectionThatFailsValidationIsReplacedNotHandedOut() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 1).validateAfter(Duration.ZERO).build()) {
            StubConnection first;
            try (Connection c = ds.getConnection()) {
                first = c.unwrap(StubConnection.class);
            }
            first.valid = false;
            try (Connection c = ds.getConnection()) {
                assertNotSame(first, c.unwrap(StubConnection.class));
            }
            assertTrue(first.isClosed(), "the invalid one was destroyed");
        }
    }

    // ---------------------------------------------------------------- ConcurrentCloseConnectionTest

    @Test
    void statementsClosedFromManyThreadsWhileMoreAreMade() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 1).build()) {
            StubConnection physical;
            try (Connection c = ds.getConnection()) {
                physical = c.unwrap(StubConnection.class);
                java.util.concurrent.ExecutorService closers = java.util.concurrent.Executors.newFixedThreadPool(10);
                try {
                    List<java.util.concurrent.Future<?>> done = new ArrayList<>();
                    for (int i = 0; i < 500; i++) {
                        Statement s = c.prepareStatement("");
                        done.add(closers.submit(() -> {
                            s.close();
                            return null;
                        }));
                    }
                    for (java.util.concurrent.Future<?> f : done) {
                        f.get();
                    }
                } finally {
                    closers.shutdown();
                }
            }
            assertEquals(500, physical.statementsClosed.get(), "each closed once, none left open");
        }
    }

    @Test
    void connectionsClosedFromManyThreadsAtOnceAllComeBack() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 10).build()) {
            List<Connection> held = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                held.add(ds.getConnection());
            }
            List<Thread> ts = new ArrayList<>();
            for (Connection c : held) {
                for (int k = 0; k < 3; k++) { // each closed three times, concurrently
                    ts.add(Thread.ofVirtual().start(() -> {
                        try {
                            c.close();
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    }));
                }
            }
            for (Thread t : ts) {
                t.join();
            }
            assertEquals(0, ds.stats().inUse());
            assertEquals(10, ds.stats().idle());
        }
    }
}
