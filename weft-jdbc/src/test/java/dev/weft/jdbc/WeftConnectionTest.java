package dev.weft.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.jdbc.stub.StubConnection;
import dev.weft.jdbc.stub.StubDataSource;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The generated wrappers over the stub driver: what the borrower sees, what the pool puts back. */
class WeftConnectionTest {

    private static WeftDataSource pool(StubDataSource stub, int max) {
        return WeftDataSource.builder("stub", stub)
                .maxSize(max)
                .maxWait(Duration.ofSeconds(5))
                .build();
    }

    @Test
    void everyObjectAnswersItsWrapperNotTheDriversOwn() throws Exception {
        try (WeftDataSource ds = pool(new StubDataSource(), 1);
                Connection c = ds.getConnection()) {
            Statement s = c.createStatement();
            PreparedStatement ps = c.prepareStatement("select 1");
            CallableStatement cs = c.prepareCall("{call f()}");
            for (Statement st : new Statement[] {s, ps, cs}) {
                assertSame(c, st.getConnection());
            }
            ResultSet rs = ps.executeQuery();
            assertSame(ps, rs.getStatement());
            assertSame(c, rs.getStatement().getConnection());
            assertSame(s, s.executeQuery("select 1").getStatement());
            assertSame(c, c.getMetaData().getConnection());
        }
    }

    @Test
    void unwrapReachesTheDriverAndIsWrapperForSaysSo() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 1);
                Connection c = ds.getConnection()) {
            assertSame(c, c.unwrap(Connection.class));
            StubConnection physical = c.unwrap(StubConnection.class);
            assertTrue(stub.open.contains(physical));
            assertTrue(c.isWrapperFor(StubConnection.class));
            assertFalse(c.isWrapperFor(String.class));
            PreparedStatement ps = c.prepareStatement("select 1");
            assertSame(ps, ps.unwrap(PreparedStatement.class));
            assertTrue(ps.isWrapperFor(dev.weft.jdbc.stub.StubStatement.class));
            assertThrows(SQLException.class, () -> c.unwrap(String.class));
        }
    }

    @Test
    void useAfterCloseIsRefusedAndCloseIsIdempotent() throws Exception {
        try (WeftDataSource ds = pool(new StubDataSource(), 1)) {
            Connection c = ds.getConnection();
            c.close();
            c.close();
            assertTrue(c.isClosed());
            SQLException e = assertThrows(SQLException.class, c::createStatement);
            assertEquals("08003", e.getSQLState());
            assertTrue(e.getMessage().contains("already closed"), e.getMessage());
            assertThrows(SQLException.class, () -> c.setAutoCommit(false));
            assertThrows(java.sql.SQLClientInfoException.class, () -> c.setClientInfo("a", "b"));
            assertEquals(0, ds.stats().inUse());
        }
    }

    @Test
    void statementsLeftOpenAreClosedWithTheConnection() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 1)) {
            StubConnection physical;
            try (Connection c = ds.getConnection()) {
                physical = c.unwrap(StubConnection.class);
                c.createStatement().close(); // closed by the borrower: not twice
                c.prepareStatement("a");
                c.prepareCall("b");
            }
            assertEquals(3, physical.statements.get());
            assertEquals(3, physical.statementsClosed.get());
        }
    }

    /**
     * A statement's close takes no lock: it stays listed until the list is compacted (decision
     * 0609). A connection held for many statements keeps the list within about twice the open
     * ones, and its close still closes exactly those left open.
     */
    @Test
    void aLongHeldConnectionListsAboutTwiceItsOpenStatements() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 1)) {
            StubConnection physical;
            List<java.sql.PreparedStatement> open = new ArrayList<>();
            try (Connection c = ds.getConnection()) {
                physical = c.unwrap(StubConnection.class);
                for (int i = 0; i < 20; i++) {
                    open.add(c.prepareStatement("kept " + i));
                }
                int most = 0;
                for (int i = 0; i < 10_000; i++) {
                    c.prepareStatement("q").close();
                    most = Math.max(most, ((ConnectionLease) c).listedStatements());
                }
                assertTrue(most <= 40, "listed at most twice the 20 open: " + most);
                assertEquals(10_000, physical.statementsClosed.get(), "the borrower's own closes");
            }
            assertEquals(10_020, physical.statementsClosed.get(), "the 20 left open, each once");
            for (java.sql.PreparedStatement ps : open) {
                assertTrue(ps.isClosed());
            }
        }
    }

    @Test
    void whatTheBorrowerChangedIsPutBackAndAnOpenTransactionRolledBack() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 1)) {
            StubConnection physical;
            try (Connection c = ds.getConnection()) {
                physical = c.unwrap(StubConnection.class);
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                c.setReadOnly(true);
                c.setSchema("other");
                c.setCatalog("other");
            }
            assertEquals(1, physical.rollbacks.get());
            try (Connection c = ds.getConnection()) {
                assertSame(physical, c.unwrap(StubConnection.class), "the same physical connection, reused");
                assertTrue(c.getAutoCommit());
                assertEquals(Connection.TRANSACTION_READ_COMMITTED, c.getTransactionIsolation());
                assertFalse(c.isReadOnly());
                assertEquals("public", c.getSchema());
                assertEquals("stub", c.getCatalog());
            }
        }
    }

    @Test
    void aConnectionLevelErrorDestroysTheConnectionAStatementErrorDoesNot() throws Exception {
        StubDataSource stub = new StubDataSource();
        try (WeftDataSource ds = pool(stub, 1)) {
            StubConnection first;
            try (Connection c = ds.getConnection()) {
                first = c.unwrap(StubConnection.class);
                first.failNext = new SQLException("syntax", "42601");
                assertThrows(SQLException.class, () -> c.prepareStatement("x").executeQuery());
            }
            try (Connection c = ds.getConnection()) {
                assertSame(first, c.unwrap(StubConnection.class), "a statement error keeps the connection");
                first.failNext = new SQLException("gone", "08006");
                SQLException e = assertThrows(
                        SQLException.class, () -> c.createStatement().executeQuery("select 1"));
                assertEquals("08006", e.getSQLState(), "the driver's own exception reaches the borrower");
            }
            assertTrue(first.isClosed(), "destroyed on return");
            try (Connection c = ds.getConnection()) {
                assertNotSame(first, c.unwrap(StubConnection.class));
            }
            assertEquals(2, stub.opened.get());
            assertEquals(1, ds.stats().destroyed());
        }
    }
}
