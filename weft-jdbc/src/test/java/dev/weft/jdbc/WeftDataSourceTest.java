package dev.weft.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What needs no server: bad input, connection failures, SQLState classification. */
class WeftDataSourceTest {

    static boolean isFatal(SQLException e) {
        return ConnectionLease.fatal(e);
    }

    @Test
    void aUrlThatIsNotJdbcIsRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> WeftDataSource.builder("db", "postgresql://localhost/app"));
        assertTrue(e.getMessage().contains("jdbc:"), e.getMessage());
    }

    @Test
    void aServerThatCannotBeReachedGivesAClearTimeout() throws Exception {
        try (WeftDataSource ds = WeftDataSource.builder("nowhere", "jdbc:weft-no-such-driver://127.0.0.1:1/x")
                .maxWait(Duration.ofMillis(200))
                .build()) {
            SQLTransientConnectionException e = assertThrows(SQLTransientConnectionException.class, ds::getConnection);
            assertTrue(e.getMessage().contains("pool \"nowhere\""), e.getMessage());
            assertTrue(e.getMessage().contains("No suitable driver"), e.getMessage());
            assertEquals("08001", e.getSQLState());
        }
    }

    @Test
    void aClosedDataSourceSaysSo() {
        WeftDataSource ds =
                WeftDataSource.builder("shut", "jdbc:weft-no-such-driver:x").build();
        ds.close();
        assertTrue(ds.isClosed());
        SQLNonTransientConnectionException e =
                assertThrows(SQLNonTransientConnectionException.class, ds::getConnection);
        assertTrue(e.getMessage().contains("\"shut\" is closed"), e.getMessage());
        assertThrows(SQLFeatureNotSupportedException.class, () -> ds.getConnection("u", "p"));
    }

    @Test
    void connectionLevelSqlStatesAreFatal() {
        assertTrue(isFatal(new SQLException("gone", "08006")));
        assertTrue(isFatal(new SQLException("admin shutdown", "57P01")));
        assertTrue(isFatal(new SQLException("outer", "XX000", new SQLException("inner", "08003"))));
        assertFalse(isFatal(new SQLException("syntax", "42601")));
        assertFalse(isFatal(new SQLException("no state")));
    }
}
