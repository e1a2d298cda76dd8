package dev.weft.jdbc;

import dev.weft.pool.Pool;
import dev.weft.pool.PoolClosedException;
import dev.weft.pool.PoolStats;
import dev.weft.pool.PoolTimeoutException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jetbrains.annotations.Blocking;

/**
 * A {@link DataSource} whose connections come from a {@link Pool} made for virtual threads: a
 * caller waiting for a connection parks (first come, first served) and never pins or spins a
 * carrier. Works with any JDBC driver and any library that takes a DataSource.
 *
 * <pre>{@code
 * try (WeftDataSource db = WeftDataSource.builder("db", "jdbc:postgresql://127.0.0.1:5432/app")
 *         .property("user", "app").maxSize(20).maxWait(Duration.ofSeconds(2)).build();
 *      Connection c = db.getConnection();
 *      ResultSet rs = c.createStatement().executeQuery("select 1")) {
 *     rs.next();
 * }
 * }</pre>
 *
 * <p>Closing a connection returns it. Before the next borrower sees it the pool puts back what
 * the last one changed: an open transaction is rolled back, auto-commit, transaction isolation,
 * read-only, schema and catalog return to the values the connection was opened with, and the
 * statements it left open are closed. A connection that raised an error of SQLState class
 * {@code 08} (connection exception) or {@code 57P0x} (server shutting down) is destroyed instead
 * of returned. A connection idle longer than {@code validateAfter} is checked with
 * {@link Connection#isValid(int)} before it is handed out.
 *
 * <p>Errors: a borrow that waited {@code maxWait} in vain throws
 * {@link SQLTransientConnectionException} (SQLState {@code 08001}) whose message names the pool,
 * its size and the wait, with the last failure to connect as its cause; a borrow from a closed
 * data source throws {@link SQLNonTransientConnectionException} ({@code 08003}).
 */
public final class WeftDataSource implements DataSource, AutoCloseable {

    private final Pool<PooledConnection> pool;
    private volatile PrintWriter logWriter;

    private WeftDataSource(Pool<PooledConnection> pool) {
        this.pool = pool;
    }

    /**
     * A data source over the driver reached by {@code jdbcUrl} through {@link DriverManager}; add
     * the driver's connection properties (user, password, ...) with {@link Builder#property}.
     */
    public static Builder builder(String name, String jdbcUrl) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith("jdbc:")) {
            throw new IllegalArgumentException("a JDBC URL starts with \"jdbc:\", e.g. jdbc:postgresql://127.0.0.1:5432/app; got " + jdbcUrl);
        }
        Properties props = new Properties();
        return new Builder(name, props, () -> DriverManager.getConnection(jdbcUrl, props));
    }

    /** A data source over physical connections from {@code driverDataSource} (e.g. PGSimpleDataSource). */
    public static Builder builder(String name, DataSource driverDataSource) {
        Objects.requireNonNull(driverDataSource, "driverDataSource");
        return new Builder(name, null, driverDataSource::getConnection);
    }

    /**
     * Borrows a connection; close it to give it back.
     *
     * @throws SQLTransientConnectionException    if none came free within {@code maxWait}
     * @throws SQLNonTransientConnectionException if the data source is closed
     * @throws SQLException                       if interrupted while waiting (the interrupt
     *                                            status is kept)
     */
    @Blocking
    @Override
    public Connection getConnection() throws SQLException {
        try {
            return pool.borrow(pool.maxWait(), WeftConnection::new);
        } catch (PoolTimeoutException e) {
            throw new SQLTransientConnectionException(e.getMessage(), "08001", e);
        } catch (PoolClosedException e) {
            throw new SQLNonTransientConnectionException(e.getMessage(), "08003", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for a connection of pool \"" + pool.name() + "\"", "08001", e);
        }
    }

    /**
     * Not supported: every connection of a pool uses the credentials it was built with.
     *
     * @throws SQLFeatureNotSupportedException always
     */
    @Blocking
    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("pool \"" + pool.name() + "\" opens every connection with the "
                + "credentials it was built with; call getConnection() or build another WeftDataSource");
    }

    /** The pool's state and history now (in use, idle, waiting, created, destroyed, waits). */
    public PoolStats stats() {
        return pool.stats();
    }

    /** The pool under this data source. */
    public Pool<?> pool() {
        return pool;
    }

    /**
     * Closes the pool: waiting callers fail at once, idle connections close, borrowed ones close
     * when returned or after {@code closeTimeout}.
     */
    @Blocking
    @Override
    public void close() {
        pool.close();
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return pool.isClosed();
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    /** Kept and returned by {@link #getLogWriter()}; weft logs through System.Logger, not here. */
    @Override
    public void setLogWriter(PrintWriter out) {
        this.logWriter = out;
    }

    /** Ignored: the wait for a connection is {@code maxWait}; a connection attempt's own timeout is the driver's. */
    @Override
    public void setLoginTimeout(int seconds) {
    }

    /** Always 0: see {@link #setLoginTimeout(int)}. */
    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("weft-jdbc logs through System.Logger \"dev.weft.pool.Pool\", not java.util.logging");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("WeftDataSource is not a wrapper for " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }

    @Override
    public String toString() {
        return "WeftDataSource[" + pool + "]";
    }

    /**
     * Options of a {@link WeftDataSource}: the pool's (same names and defaults as
     * {@link Pool.Builder}) plus the driver's connection properties and the validation timeout.
     */
    public static final class Builder {
        private final Properties props;
        private final Pool.Builder<PooledConnection> pool;
        private final PooledConnection.Factory factory;

        private Builder(String name, Properties props, PooledConnection.ConnectionSource source) {
            this.props = props;
            this.factory = new PooledConnection.Factory(source);
            this.pool = Pool.builder(name, factory);
        }

        /**
         * A connection property for the driver (user, password, sslmode, ...).
         *
         * @throws IllegalStateException on a builder made from a driver DataSource (configure that instead)
         */
        public Builder property(String key, String value) {
            if (props == null) {
                throw new IllegalStateException("this builder wraps a driver DataSource: set \"" + key + "\" on that DataSource");
            }
            props.setProperty(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** The most connections open at once (default 10). */
        public Builder maxSize(int maxSize) {
            pool.maxSize(maxSize);
            return this;
        }

        /** Idle connections kept ready (default 0). */
        public Builder minIdle(int minIdle) {
            pool.minIdle(minIdle);
            return this;
        }

        /** Connections being opened at once, at most (default 4). */
        public Builder maxCreating(int maxCreating) {
            pool.maxCreating(maxCreating);
            return this;
        }

        /** The longest {@link #getConnection()} waits (default 30 s). */
        public Builder maxWait(Duration maxWait) {
            pool.maxWait(maxWait);
            return this;
        }

        /** A connection older than this is closed when idle or returned (default 30 min; zero: never). */
        public Builder maxLifetime(Duration maxLifetime) {
            pool.maxLifetime(maxLifetime);
            return this;
        }

        /** A connection idle longer than this is closed, beyond minIdle (default 10 min; zero: never). */
        public Builder idleTimeout(Duration idleTimeout) {
            pool.idleTimeout(idleTimeout);
            return this;
        }

        /** A connection idle longer than this is checked with isValid before use (default 500 ms). */
        public Builder validateAfter(Duration validateAfter) {
            pool.validateAfter(validateAfter);
            return this;
        }

        /** The timeout given to {@link Connection#isValid(int)}, rounded up to seconds (default 5 s). */
        public Builder validationTimeout(Duration validationTimeout) {
            Objects.requireNonNull(validationTimeout, "validationTimeout");
            if (validationTimeout.isNegative() || validationTimeout.isZero()) {
                throw new IllegalArgumentException("validationTimeout must be positive; got " + validationTimeout);
            }
            factory.validationTimeoutSeconds = (int) Math.min(Integer.MAX_VALUE, (validationTimeout.toMillis() + 999) / 1000);
            return this;
        }

        /** A connection held longer than this is reported with the borrower's stack (default zero: off). */
        public Builder leakThreshold(Duration leakThreshold) {
            pool.leakThreshold(leakThreshold);
            return this;
        }

        /** How long {@link #close()} waits for borrowed connections (default 30 s). */
        public Builder closeTimeout(Duration closeTimeout) {
            pool.closeTimeout(closeTimeout);
            return this;
        }

        /** Builds the data source; it opens minIdle connections in the background. */
        public WeftDataSource build() {
            return new WeftDataSource(pool.build());
        }
    }
}
