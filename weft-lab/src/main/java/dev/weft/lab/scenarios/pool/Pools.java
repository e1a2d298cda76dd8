package dev.weft.lab.scenarios.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.weft.jdbc.WeftDataSource;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import javax.sql.DataSource;

/** The six pools of the scenario behind one small interface. */
final class Pools {

    private Pools() {}

    /** A pool as the scenario drives it. */
    interface ConnectionPool extends AutoCloseable {
        Connection borrow() throws Exception;

        void giveBack(Connection c) throws Exception;

        @Override
        void close() throws Exception;
    }

    static final List<String> NAMES =
            List.of("synchronized-pool", "semaphore-pool", "yield-spin-pool", "hikaricp", "agroal", "weft-pool");

    static ConnectionPool open(String name, String url, int size) throws Exception {
        return switch (name) {
            case "synchronized-pool" -> new ArticlePool(new SimpleConnectionPool(connect(url, size)));
            case "semaphore-pool" -> new ArticlePool(new VirtualThreadFriendlyPool(connect(url, size)));
            case "yield-spin-pool" -> new ArticlePool(new YieldSpinPool(connect(url, size)));
            case "hikaricp" -> {
                HikariConfig c = new HikariConfig();
                c.setPoolName("lab-hikari");
                c.setJdbcUrl(url);
                c.setMaximumPoolSize(size);
                c.setMinimumIdle(size);
                c.setConnectionTimeout(60_000);
                yield new DataSourcePool(new HikariDataSource(c));
            }
            case "agroal" -> {
                AgroalDataSourceConfigurationSupplier c = new AgroalDataSourceConfigurationSupplier()
                        .connectionPoolConfiguration(cp -> cp.maxSize(size)
                                .minSize(size)
                                .initialSize(size)
                                .acquisitionTimeout(Duration.ofSeconds(60))
                                .connectionFactoryConfiguration(cf -> cf.jdbcUrl(url)));
                yield new DataSourcePool(AgroalDataSource.from(c));
            }
            case "weft-pool" ->
                new DataSourcePool(WeftDataSource.builder("lab-weft", url)
                        .maxSize(size)
                        .minIdle(size)
                        .maxWait(Duration.ofSeconds(60))
                        .build());
            default -> throw new IllegalArgumentException("no pool variant " + name + "; one of " + NAMES);
        };
    }

    /** The article's pools take their connections made up front, one after another. */
    private static List<Connection> connect(String url, int size) throws SQLException {
        List<Connection> list = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            list.add(DriverManager.getConnection(url));
        }
        return list;
    }

    private record DataSourcePool(DataSource ds) implements ConnectionPool {
        @Override
        public Connection borrow() throws SQLException {
            return ds.getConnection();
        }

        @Override
        public void giveBack(Connection c) throws SQLException {
            c.close();
        }

        @Override
        public void close() throws Exception {
            if (ds instanceof AutoCloseable a) {
                a.close();
            }
        }
    }

    /** checkout / checkin pools over a fixed list of connections. */
    interface Article {
        Connection checkout() throws InterruptedException;

        void checkin(Connection c);

        List<Connection> all();
    }

    private record ArticlePool(Article pool) implements ConnectionPool {
        @Override
        public Connection borrow() throws InterruptedException {
            return pool.checkout();
        }

        @Override
        public void giveBack(Connection c) {
            pool.checkin(c);
        }

        @Override
        public void close() throws SQLException {
            for (Connection c : pool.all()) {
                c.close();
            }
        }
    }

    /** Article 001's SimpleConnectionPool: synchronized + wait/notify. */
    static final class SimpleConnectionPool implements Article {
        private final Queue<Connection> available = new LinkedList<>();
        private final List<Connection> all;

        SimpleConnectionPool(List<Connection> connections) {
            this.all = List.copyOf(connections);
            available.addAll(connections);
        }

        @Override
        public synchronized Connection checkout() throws InterruptedException {
            while (available.isEmpty()) {
                wait();
            }
            return available.poll();
        }

        @Override
        public synchronized void checkin(Connection conn) {
            available.add(conn);
            notify();
        }

        @Override
        public List<Connection> all() {
            return all;
        }
    }

    /** Article 001's VirtualThreadFriendlyPool: Semaphore + ConcurrentLinkedQueue. */
    static final class VirtualThreadFriendlyPool implements Article {
        private final ConcurrentLinkedQueue<Connection> available = new ConcurrentLinkedQueue<>();
        private final Semaphore permits;
        private final List<Connection> all;

        VirtualThreadFriendlyPool(List<Connection> connections) {
            this.all = List.copyOf(connections);
            available.addAll(connections);
            this.permits = new Semaphore(connections.size());
        }

        @Override
        public Connection checkout() throws InterruptedException {
            permits.acquire();
            Connection conn = available.poll();
            if (conn == null) {
                permits.release();
                throw new IllegalStateException("Pool corrupted");
            }
            return conn;
        }

        @Override
        public void checkin(Connection conn) {
            available.add(conn);
            permits.release();
        }

        @Override
        public List<Connection> all() {
            return all;
        }
    }

    /**
     * A pool whose borrowers wait by a {@code Thread.yield} loop, the pattern HikariCP #2398
     * reports in ConcurrentBag.requite: every waiting virtual thread goes back to the scheduler's
     * queue at once and comes round again, so the carriers never rest while anyone waits. As in
     * ConcurrentBag, every 256th turn parks for 10 us instead (without it, the yielders refill the
     * carriers' local queues and the virtual threads woken by I/O never get a carrier: a livelock,
     * seen here with 100 borrowers).
     */
    static final class YieldSpinPool implements Article {
        private final ConcurrentLinkedQueue<Connection> available = new ConcurrentLinkedQueue<>();
        private final List<Connection> all;

        YieldSpinPool(List<Connection> connections) {
            this.all = List.copyOf(connections);
            available.addAll(connections);
        }

        @Override
        public Connection checkout() throws InterruptedException {
            Connection c;
            for (int i = 0; (c = available.poll()) == null; i++) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while spinning for a connection");
                }
                if ((i & 0xff) == 0xff) {
                    java.util.concurrent.locks.LockSupport.parkNanos(10_000);
                } else {
                    Thread.yield();
                }
            }
            return c;
        }

        @Override
        public void checkin(Connection conn) {
            available.add(conn);
        }

        @Override
        public List<Connection> all() {
            return all;
        }
    }
}
