package dev.weft.jdbc;

import dev.weft.pool.ResourceFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * One physical connection and the state it had when it was opened, so the pool can put back what
 * a borrower changed. The flags are set by the borrower's {@link ConnectionHandle} (one thread at
 * a time: the pool's hand-off orders the borrowers).
 */
final class PooledConnection {

    final Connection physical;
    final boolean autoCommit;
    final int isolation;
    final boolean readOnly;
    final String schema;
    final String catalog;
    /** Set by setAutoCommit, or when the borrower unwrapped the physical connection (it may have changed it directly). */
    boolean autoCommitTouched;

    boolean isolationChanged;
    boolean readOnlyChanged;
    boolean schemaChanged;
    boolean catalogChanged;
    boolean broken;

    PooledConnection(Connection physical) throws SQLException {
        this.physical = physical;
        this.autoCommit = physical.getAutoCommit();
        this.isolation = physical.getTransactionIsolation();
        this.readOnly = physical.isReadOnly();
        this.schema = schemaOf(physical);
        this.catalog = physical.getCatalog();
    }

    private static String schemaOf(Connection c) throws SQLException {
        try {
            return c.getSchema();
        } catch (AbstractMethodError | java.sql.SQLFeatureNotSupportedException old) {
            return null; // a JDBC 4.0 driver: no schemas to reset
        }
    }

    /** Puts back what the last borrower changed; an open transaction is rolled back. */
    void reset() throws SQLException {
        if (broken) {
            throw new SQLException("the connection reported a connection-level error; it is not reused", "08006");
        }
        // A transaction can be open only if auto-commit is off: it was off from the start, or the
        // borrower turned it off (through the handle, or on the unwrapped physical connection).
        // Otherwise nothing to ask the driver: the common return costs no call for it.
        if (autoCommitTouched || !autoCommit) {
            if (!physical.getAutoCommit()) {
                physical.rollback();
            }
            if (physical.getAutoCommit() != autoCommit) {
                physical.setAutoCommit(autoCommit);
            }
            autoCommitTouched = false;
        }
        if (isolationChanged) {
            physical.setTransactionIsolation(isolation);
            isolationChanged = false;
        }
        if (readOnlyChanged) {
            physical.setReadOnly(readOnly);
            readOnlyChanged = false;
        }
        if (schemaChanged) {
            physical.setSchema(schema);
            schemaChanged = false;
        }
        if (catalogChanged && catalog != null) {
            physical.setCatalog(catalog);
            catalogChanged = false;
        }
        physical.clearWarnings();
    }

    /** The pool's view of JDBC connections: open through a source, check with isValid, close. */
    static final class Factory implements ResourceFactory<PooledConnection> {
        private final ConnectionSource source;
        volatile int validationTimeoutSeconds = 5;

        Factory(ConnectionSource source) {
            this.source = Objects.requireNonNull(source, "source");
        }

        @Override
        public PooledConnection create() throws SQLException {
            Connection c = source.open();
            try {
                return new PooledConnection(c);
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
        }

        @Override
        public boolean validate(PooledConnection c) throws SQLException {
            return !c.broken && c.physical.isValid(validationTimeoutSeconds);
        }

        @Override
        public void reset(PooledConnection c) throws SQLException {
            c.reset();
        }

        @Override
        public void destroy(PooledConnection c) throws SQLException {
            c.physical.close();
        }
    }

    /** Where physical connections come from: a driver's DataSource or DriverManager with a URL. */
    @FunctionalInterface
    interface ConnectionSource {
        Connection open() throws SQLException;
    }
}
