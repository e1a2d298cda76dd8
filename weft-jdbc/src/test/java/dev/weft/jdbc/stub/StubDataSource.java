package dev.weft.jdbc.stub;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A driver DataSource whose connections do no I/O and use no reflection (weft-jdbc's tests and
 * weft-bench's PoolBench run on it, as HikariCP's own benchmark runs on its StubConnection). Tests
 * can make the next connection attempts fail or slow, and see every connection it opened.
 */
public class StubDataSource implements DataSource {

    /** Connections opened so far. */
    public final AtomicInteger opened = new AtomicInteger();
    /** Connections open now (opened, not closed). */
    public final Set<StubConnection> open = ConcurrentHashMap.newKeySet();
    /** How many of the next connection attempts throw (SQLState 08001). */
    public final AtomicInteger failNextConnects = new AtomicInteger();
    /** How long each connection attempt takes. */
    public volatile long connectMillis;

    /** A stub data source whose connections open at once. */
    public StubDataSource() {}

    @Override
    public Connection getConnection() throws SQLException {
        long ms = connectMillis;
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while connecting", "08001", e);
            }
        }
        if (failNextConnects.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new SQLException("stub: connection refused", "08001");
        }
        opened.incrementAndGet();
        StubConnection c = new StubConnection(this);
        open.add(c);
        return c;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("the stub driver does not log");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("StubDataSource is not a wrapper for " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
