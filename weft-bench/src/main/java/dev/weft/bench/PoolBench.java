package dev.weft.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.weft.jdbc.WeftDataSource;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Borrow and return one JDBC connection (getConnection + close), weft's pool
 * ({@code WeftDataSource}) against HikariCP's, both over a stub driver whose connections do
 * nothing, so that only the pools' own work is measured: uncontended (1 thread, pool of 4) and
 * contended (8 threads, pool of 4: half of them wait at any moment). Throughput, operations per
 * second. HikariCP's authors publish ~11.6 M ops/s for its ConcurrentBag on their hardware.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PoolBench {

    /** One pool of 4 stub connections, of the kind {@code pool} names. */
    @State(Scope.Benchmark)
    public static class Pools {
        /** Which pool. */
        @Param({"weft", "hikaricp"})
        public String pool;

        DataSource ds;

        @Setup(Level.Trial)
        public void open() throws SQLException {
            if (pool.equals("weft")) {
                ds = WeftDataSource.builder("bench", new StubDataSource()).maxSize(4).minIdle(4)
                        .maxWait(Duration.ofSeconds(30)).build();
            } else {
                HikariConfig c = new HikariConfig();
                c.setDataSource(new StubDataSource());
                c.setMaximumPoolSize(4);
                c.setMinimumIdle(4);
                c.setConnectionTimeout(30_000);
                ds = new HikariDataSource(c);
            }
            ds.getConnection().close();
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            ((AutoCloseable) ds).close();
        }
    }

    @Benchmark
    @Threads(1)
    public void uncontended(Pools p) throws SQLException {
        p.ds.getConnection().close();
    }

    @Benchmark
    @Threads(8)
    public void contended(Pools p) throws SQLException {
        p.ds.getConnection().close();
    }

    /** A driver DataSource whose connections answer every call with a default and do no I/O. */
    static final class StubDataSource implements DataSource {
        @Override
        public Connection getConnection() {
            return (Connection) Proxy.newProxyInstance(PoolBench.class.getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, m, args) -> switch (m.getName()) {
                        case "getAutoCommit", "isValid" -> true;
                        case "getTransactionIsolation" -> Connection.TRANSACTION_READ_COMMITTED;
                        case "isReadOnly", "isClosed", "isWrapperFor" -> false;
                        case "getNetworkTimeout", "hashCode" -> 0;
                        case "equals" -> proxy == args[0];
                        case "toString" -> "stub connection";
                        default -> null;
                    });
        }

        @Override
        public Connection getConnection(String user, String password) {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
