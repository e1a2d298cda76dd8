package dev.weft.jdbc.stub;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/** A statement (plain, prepared or callable) of a {@link StubConnection}: queries answer an empty result. */
public class StubStatement extends StubCallableStatementBase {

    private final StubConnection connection;
    private boolean closed;

    StubStatement(StubConnection connection) {
        this.connection = connection;
    }

    private void open() throws SQLException {
        if (closed) {
            throw new SQLException("stub: statement closed", "HY010");
        }
        connection.maybeFail();
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        open();
        return new StubResultSet(this);
    }

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        open();
        return new StubResultSet(this);
    }

    @Override
    public boolean execute() throws SQLException {
        open();
        return false;
    }

    @Override
    public boolean execute(String sql) throws SQLException {
        open();
        return false;
    }

    @Override
    public int executeUpdate() throws SQLException {
        open();
        return 0;
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
        open();
        return 0;
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        open();
        return new StubResultSet(this);
    }

    @Override
    public Connection getConnection() {
        return connection;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            connection.statementsClosed.incrementAndGet();
        }
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("StubStatement is not a wrapper for " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
