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
import java.util.concurrent.locks.ReentrantLock;
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
 * <p>Containers and Spring configure it as a JavaBean instead: the no-argument constructor, the
 * setters ({@link #setUrl} or {@link #setJdbcUrl}, {@link #setUsername}, {@link #setPassword},
 * {@link #setDriverClassName}, and one per pool option, e.g. {@link #setMaxSize}), or
 * {@link #WeftDataSource(Properties)} with weft's names or HikariCP's. Such a data source starts at
 * its first {@link #getConnection()}; a setter after that throws.
 *
 * <pre>{@code
 * WeftDataSource db = new WeftDataSource();
 * db.setUrl("jdbc:postgresql://127.0.0.1:5432/app");
 * db.setUsername("app");
 * db.setMaxSize(20);
 * }</pre>
 *
 * <p>Errors: a borrow that waited {@code maxWait} in vain throws
 * {@link SQLTransientConnectionException} (SQLState {@code 08001}) whose message names the pool,
 * its size and the wait, with the last failure to connect as its cause; a borrow from a closed
 * data source throws {@link SQLNonTransientConnectionException} ({@code 08003}).
 */
public final class WeftDataSource implements DataSource, AutoCloseable {

    /** Null until a JavaBean-configured data source starts; set once. */
    private volatile Pool<PooledConnection> pool;
    /** The JavaBean configuration, until start; null for a data source from a builder. */
    private final DataSourceConfig config;

    private final ReentrantLock starting = new ReentrantLock();
    private boolean closedBeforeStart;
    private volatile PrintWriter logWriter;

    private WeftDataSource(Pool<PooledConnection> pool) {
        this.pool = pool;
        this.config = null;
    }

    /**
     * A data source to configure with its setters (at least {@link #setUrl} or
     * {@link #setDataSource}); it starts at its first {@link #getConnection()}.
     */
    public WeftDataSource() {
        this.config = new DataSourceConfig();
    }

    /**
     * A data source configured from {@code props}: weft's names ({@code url}, {@code username},
     * {@code password}, {@code driverClassName}, {@code poolName}, {@code maxSize}, {@code minIdle},
     * {@code maxCreating}, {@code maxWait}, {@code maxLifetime}, {@code idleTimeout},
     * {@code validateAfter}, {@code validationTimeout}, {@code leakThreshold},
     * {@code closeTimeout}), HikariCP's ({@code jdbcUrl}, {@code maximumPoolSize},
     * {@code connectionTimeout} ...; weft-jdbc's README has the table) and
     * {@code dataSource.<name>} for a driver property. Durations are milliseconds or "30s",
     * "500ms", "2m", "PT30S".
     *
     * @throws IllegalArgumentException naming an unknown key or a bad value (nothing is started)
     */
    public WeftDataSource(Properties props) {
        this();
        config.apply(Objects.requireNonNull(props, "props"));
    }

    /** The configuration, for a setter: refused once started or on a builder-made data source. */
    private DataSourceConfig configuring(String property) {
        if (config == null) {
            throw new IllegalStateException("this WeftDataSource was built by WeftDataSource.builder(...): set "
                    + property + " on the builder, not with a setter");
        }
        starting.lock();
        try {
            if (pool != null) {
                throw new IllegalStateException(
                        "WeftDataSource \"" + config.poolName + "\" has started (its first getConnection()); " + "set "
                                + property + " before that, or make a new WeftDataSource");
            }
            return config;
        } finally {
            starting.unlock();
        }
    }

    /** The pool, starting a JavaBean-configured data source if it has not started. */
    private Pool<PooledConnection> started() throws SQLException {
        Pool<PooledConnection> p = pool;
        if (p != null) {
            return p;
        }
        starting.lock();
        try {
            if (pool == null) {
                if (closedBeforeStart) {
                    throw new SQLNonTransientConnectionException(
                            "WeftDataSource \"" + config.poolName
                                    + "\" is closed; get connections from an open data source",
                            "08003");
                }
                try {
                    pool = config.builder().buildPool(); // checks first: a failure starts nothing
                } catch (IllegalArgumentException e) {
                    throw new SQLException(
                            "WeftDataSource \"" + config.poolName + "\" cannot start: " + e.getMessage(), e);
                }
            }
            return pool;
        } finally {
            starting.unlock();
        }
    }

    /** The JDBC URL of the driver (JavaBean property; {@link #setJdbcUrl} is the same). */
    public void setUrl(String url) {
        configuring("url").url = Objects.requireNonNull(url, "url");
    }

    /** The JDBC URL set by {@link #setUrl} or {@link #setJdbcUrl}, or null. */
    public String getUrl() {
        return config == null ? null : config.url;
    }

    /** The same as {@link #setUrl} (HikariCP's name). */
    public void setJdbcUrl(String jdbcUrl) {
        setUrl(jdbcUrl);
    }

    /** The same as {@link #getUrl} (HikariCP's name). */
    public String getJdbcUrl() {
        return getUrl();
    }

    /** The database user (the driver property {@code user}). */
    public void setUsername(String username) {
        configuring("username").username = username;
    }

    /** The user set by {@link #setUsername}, or null. */
    public String getUsername() {
        return config == null ? null : config.username;
    }

    /** The database password (the driver property {@code password}). */
    public void setPassword(String password) {
        configuring("password").password = password;
    }

    /** A driver class to load before the URL is resolved (only needed for drivers that do not register themselves). */
    public void setDriverClassName(String driverClassName) {
        configuring("driverClassName").driverClassName = driverClassName;
    }

    /** The driver class set by {@link #setDriverClassName}, or null. */
    public String getDriverClassName() {
        return config == null ? null : config.driverClassName;
    }

    /** A driver's own DataSource to take physical connections from, instead of a URL. */
    public void setDataSource(DataSource driverDataSource) {
        configuring("dataSource").dataSource = Objects.requireNonNull(driverDataSource, "driverDataSource");
    }

    /** Driver connection properties (sslmode, ...), added to user and password. */
    public void setDataSourceProperties(Properties driverProperties) {
        configuring("dataSourceProperties").driverProperties.putAll(driverProperties);
    }

    /** The pool's name, in messages, statistics and thread names (default "weft"). */
    public void setPoolName(String poolName) {
        configuring("poolName").poolName = Objects.requireNonNull(poolName, "poolName");
    }

    /** See {@link Builder#maxSize}. */
    public void setMaxSize(int maxSize) {
        configuring("maxSize").option("maxSize", b -> b.maxSize(maxSize));
    }

    /** See {@link Builder#minIdle}. */
    public void setMinIdle(int minIdle) {
        configuring("minIdle").option("minIdle", b -> b.minIdle(minIdle));
    }

    /** See {@link Builder#maxCreating}. */
    public void setMaxCreating(int maxCreating) {
        configuring("maxCreating").option("maxCreating", b -> b.maxCreating(maxCreating));
    }

    /** See {@link Builder#maxWait}. */
    public void setMaxWait(Duration maxWait) {
        configuring("maxWait").option("maxWait", b -> b.maxWait(maxWait));
    }

    /** See {@link Builder#maxLifetime}. */
    public void setMaxLifetime(Duration maxLifetime) {
        configuring("maxLifetime").option("maxLifetime", b -> b.maxLifetime(maxLifetime));
    }

    /** See {@link Builder#idleTimeout}. */
    public void setIdleTimeout(Duration idleTimeout) {
        configuring("idleTimeout").option("idleTimeout", b -> b.idleTimeout(idleTimeout));
    }

    /** See {@link Builder#validateAfter}. */
    public void setValidateAfter(Duration validateAfter) {
        configuring("validateAfter").option("validateAfter", b -> b.validateAfter(validateAfter));
    }

    /** See {@link Builder#validationTimeout}. */
    public void setValidationTimeout(Duration validationTimeout) {
        configuring("validationTimeout").option("validationTimeout", b -> b.validationTimeout(validationTimeout));
    }

    /** See {@link Builder#leakThreshold}. */
    public void setLeakThreshold(Duration leakThreshold) {
        configuring("leakThreshold").option("leakThreshold", b -> b.leakThreshold(leakThreshold));
    }

    /** See {@link Builder#closeTimeout}. */
    public void setCloseTimeout(Duration closeTimeout) {
        configuring("closeTimeout").option("closeTimeout", b -> b.closeTimeout(closeTimeout));
    }

    /**
     * A data source over the driver reached by {@code jdbcUrl} through {@link DriverManager}; add
     * the driver's connection properties (user, password, ...) with {@link Builder#property}.
     */
    public static Builder builder(String name, String jdbcUrl) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith("jdbc:")) {
            throw new IllegalArgumentException(
                    "a JDBC URL starts with \"jdbc:\", e.g. jdbc:postgresql://127.0.0.1:5432/app; got " + jdbcUrl);
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
        Pool<PooledConnection> pool = started();
        try {
            return pool.borrow(pool.maxWait(), WeftConnection::new);
        } catch (PoolTimeoutException e) {
            throw new SQLTransientConnectionException(e.getMessage(), "08001", e);
        } catch (PoolClosedException e) {
            throw new SQLNonTransientConnectionException(e.getMessage(), "08003", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException(
                    "interrupted while waiting for a connection of pool \"" + pool.name() + "\"", "08001", e);
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
        throw new SQLFeatureNotSupportedException("pool \"" + name() + "\" opens every connection with the "
                + "credentials it was built with; call getConnection() or build another WeftDataSource");
    }

    private String name() {
        Pool<PooledConnection> p = pool;
        return p != null ? p.name() : config.poolName;
    }

    /**
     * The pool's state and history now (in use, idle, waiting, created, destroyed, waits). Starts
     * a JavaBean-configured data source.
     *
     * @throws IllegalStateException if it cannot start (the message names the property at fault)
     */
    public PoolStats stats() {
        return pool().stats();
    }

    /**
     * The pool under this data source. Starts a JavaBean-configured data source.
     *
     * @throws IllegalStateException if it cannot start (the message names the property at fault)
     */
    public Pool<?> pool() {
        try {
            return started();
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * Closes the pool: waiting callers fail at once, idle connections close, borrowed ones close
     * when returned or after {@code closeTimeout}. A JavaBean-configured data source that never
     * started just refuses to start afterwards.
     */
    @Blocking
    @Override
    public void close() {
        Pool<PooledConnection> p;
        starting.lock();
        try {
            p = pool;
            closedBeforeStart = p == null;
        } finally {
            starting.unlock();
        }
        if (p != null) {
            p.close();
        }
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        Pool<PooledConnection> p = pool;
        if (p != null) {
            return p.isClosed();
        }
        starting.lock();
        try {
            return closedBeforeStart;
        } finally {
            starting.unlock();
        }
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
    public void setLoginTimeout(int seconds) {}

    /** Always 0: see {@link #setLoginTimeout(int)}. */
    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException(
                "weft-jdbc logs through System.Logger \"dev.weft.pool.Pool\", not java.util.logging");
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
        Pool<PooledConnection> p = pool;
        return "WeftDataSource[" + (p != null ? p : "\"" + config.poolName + "\", not started") + "]";
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
                throw new IllegalStateException(
                        "this builder wraps a driver DataSource: set \"" + key + "\" on that DataSource");
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
            factory.validationTimeoutSeconds =
                    (int) Math.min(Integer.MAX_VALUE, (validationTimeout.toMillis() + 999) / 1000);
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
            return new WeftDataSource(buildPool());
        }

        Pool<PooledConnection> buildPool() {
            return pool.build();
        }
    }
}
