package dev.weft.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.weft.jdbc.WeftDataSource;
import dev.weft.jdbc.stub.StubDataSource;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * weft's pool ({@code WeftDataSource}) against HikariCP 7.1 and Agroal 3.2, side by side in one
 * run, all three over weft-jdbc's stub driver (no I/O, no reflection: what is measured is the
 * pools' own work, as in HikariCP's benchmark repository). Throughput, operations per second:
 * <ul>
 *   <li>{@code cycleConnection}: getConnection + close, 1 thread, pool of 4 (HikariCP's
 *       ConnectionBench);</li>
 *   <li>{@code cycleConnectionContended}: the same with 8 threads on a pool of 4;</li>
 *   <li>{@code cycleStatement}: prepareStatement + executeQuery + close the result set and the
 *       statement, on a connection held for the trial (HikariCP's StatementBench);</li>
 *   <li>{@code virtualThreads}: 2,000 virtual threads each doing getConnection + close
 *       {@value #CYCLES} times on a pool of 50, reported as borrows per second (HikariCP PR #2402's
 *       shape).</li>
 * </ul>
 * Goal (issue 24): weft at least 1.0x HikariCP in each, 1.2x in virtualThreads; run with
 * {@code -prof gc} for the allocation per operation ({@code gc.alloc.rate.norm}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PoolBench {

    static final int VIRTUAL_THREADS = 2_000;
    static final int CYCLES = 100;

    /** One pool of the kind {@code pool} names: 50 connections for virtualThreads, else 4. */
    @State(Scope.Benchmark)
    public static class Pools {
        /** Which pool. */
        @Param({"weft", "hikaricp", "agroal"})
        public String pool;

        DataSource ds;

        @Setup(Level.Trial)
        public void open(BenchmarkParams params) throws SQLException {
            int size = params.getBenchmark().endsWith("virtualThreads") ? 50 : 4;
            ds = switch (pool) {
                case "weft" ->
                    WeftDataSource.builder("bench", new StubDataSource())
                            .maxSize(size)
                            .minIdle(size)
                            .maxWait(Duration.ofSeconds(30))
                            .build();
                case "hikaricp" -> {
                    HikariConfig c = new HikariConfig();
                    c.setDataSource(new StubDataSource());
                    c.setMaximumPoolSize(size);
                    c.setMinimumIdle(size);
                    c.setConnectionTimeout(30_000);
                    yield new HikariDataSource(c);
                }
                case "agroal" -> {
                    AgroalDataSourceConfigurationSupplier c = new AgroalDataSourceConfigurationSupplier()
                            .connectionPoolConfiguration(cp -> cp.maxSize(size)
                                    .minSize(size)
                                    .initialSize(size)
                                    .acquisitionTimeout(Duration.ofSeconds(30))
                                    .connectionFactoryConfiguration(
                                            cf -> cf.connectionProviderClass(StubDataSource.class)));
                    yield AgroalDataSource.from(c);
                }
                default -> throw new IllegalArgumentException("no pool " + pool + "; one of weft, hikaricp, agroal");
            };
            ds.getConnection().close();
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            ((AutoCloseable) ds).close();
        }
    }

    /** A connection held by one benchmark thread for the whole trial (cycleStatement). */
    @State(Scope.Thread)
    public static class Held {
        Connection connection;

        @Setup(Level.Trial)
        public void borrow(Pools p) throws SQLException {
            connection = p.ds.getConnection();
        }

        @TearDown(Level.Trial)
        public void giveBack() throws SQLException {
            connection.close();
        }
    }

    @Benchmark
    @Threads(1)
    public Connection cycleConnection(Pools p) throws SQLException {
        return cycle(p.ds);
    }

    @Benchmark
    @Threads(8)
    public Connection cycleConnectionContended(Pools p) throws SQLException {
        return cycle(p.ds);
    }

    private static Connection cycle(DataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        c.close();
        return c;
    }

    @Benchmark
    @Threads(1)
    public ResultSet cycleStatement(Held h) throws SQLException {
        PreparedStatement s = h.connection.prepareStatement("select 1");
        ResultSet rs = s.executeQuery();
        rs.close();
        s.close();
        return rs;
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(VIRTUAL_THREADS * CYCLES)
    public void virtualThreads(Pools p) throws Exception {
        Thread[] ts = new Thread[VIRTUAL_THREADS];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = Thread.ofVirtual().start(() -> {
                try {
                    for (int k = 0; k < CYCLES; k++) {
                        p.ds.getConnection().close();
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        for (Thread t : ts) {
            t.join();
        }
    }
}
