package dev.weft.jdbc.stub;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connection of {@link StubDataSource}: keeps the state a pool resets (auto-commit, isolation,
 * read-only, schema, catalog), counts rollbacks and statements, and can be told to fail: the next
 * call throws {@link #failNext}, or {@link #isValid} answers false.
 */
public class StubConnection extends StubConnectionBase {

    private final StubDataSource source;
    private volatile boolean closed;
    private boolean autoCommit = true;
    private int isolation = Connection.TRANSACTION_READ_COMMITTED;
    private boolean readOnly;
    private String schema = "public";
    private String catalog = "stub";
    private int networkTimeout;
    /** Thrown (once) by the next statement execution or connection call that can fail. */
    public volatile SQLException failNext;
    /** What isValid answers. */
    public volatile boolean valid = true;
    /** Rollbacks so far. */
    public final AtomicInteger rollbacks = new AtomicInteger();
    /** Statements made so far, and closed so far. */
    public final AtomicInteger statements = new AtomicInteger();

    public final AtomicInteger statementsClosed = new AtomicInteger();

    StubConnection(StubDataSource source) {
        this.source = source;
    }

    void maybeFail() throws SQLException {
        SQLException e = failNext;
        if (e != null) {
            failNext = null;
            throw e;
        }
    }

    private void open() throws SQLException {
        if (closed) {
            throw new SQLException("stub: connection closed", "08003");
        }
        maybeFail();
    }

    @Override
    public Statement createStatement() throws SQLException {
        open();
        statements.incrementAndGet();
        return new StubStatement(this);
    }

    @Override
    public PreparedStatement prepareStatement(String sql) throws SQLException {
        open();
        statements.incrementAndGet();
        return new StubStatement(this);
    }

    @Override
    public CallableStatement prepareCall(String sql) throws SQLException {
        open();
        statements.incrementAndGet();
        return new StubStatement(this);
    }

    @Override
    public boolean getAutoCommit() {
        return autoCommit;
    }

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        open();
        this.autoCommit = autoCommit;
    }

    @Override
    public void commit() throws SQLException {
        open();
    }

    @Override
    public void rollback() throws SQLException {
        open();
        rollbacks.incrementAndGet();
    }

    @Override
    public int getTransactionIsolation() {
        return isolation;
    }

    @Override
    public void setTransactionIsolation(int level) throws SQLException {
        open();
        this.isolation = level;
    }

    @Override
    public boolean isReadOnly() {
        return readOnly;
    }

    @Override
    public void setReadOnly(boolean readOnly) throws SQLException {
        open();
        this.readOnly = readOnly;
    }

    @Override
    public String getSchema() {
        return schema;
    }

    @Override
    public void setSchema(String schema) throws SQLException {
        open();
        this.schema = schema;
    }

    @Override
    public String getCatalog() {
        return catalog;
    }

    @Override
    public void setCatalog(String catalog) throws SQLException {
        open();
        this.catalog = catalog;
    }

    @Override
    public boolean isValid(int timeout) {
        return valid && !closed;
    }

    @Override
    public int getNetworkTimeout() {
        return networkTimeout;
    }

    @Override
    public void setNetworkTimeout(Executor executor, int milliseconds) {
        this.networkTimeout = milliseconds;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            source.open.remove(this);
        }
    }

    @Override
    public void abort(Executor executor) {
        close();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("StubConnection is not a wrapper for " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }

    @Override
    public String toString() {
        return "stub connection" + (closed ? " (closed)" : "");
    }
}
