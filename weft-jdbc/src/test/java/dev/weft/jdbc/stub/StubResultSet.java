package dev.weft.jdbc.stub;

import java.sql.SQLException;
import java.sql.Statement;

/** An empty result of a {@link StubStatement}. */
public class StubResultSet extends StubResultSetBase {

    private final StubStatement statement;
    private boolean closed;

    StubResultSet(StubStatement statement) {
        this.statement = statement;
    }

    @Override
    public boolean next() {
        return false;
    }

    @Override
    public Statement getStatement() {
        return statement;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("StubResultSet is not a wrapper for " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
