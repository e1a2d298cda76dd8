package dev.weft.lab.scenarios.pool;

import clojure.java.api.Clojure;
import clojure.lang.AFn;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.weft.jdbc.WeftDataSource;
import dev.weft.lab.scenarios.http.OpenLoop;
import dev.weft.pool.PoolLimit;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The overload scenario's three servers, each with a pool of {@link OverloadScenario#SIZE}
 * connections and the same handler: borrow a connection, run {@link OverloadScenario#QUERY},
 * answer 200. Every variant counts its queries the same way: a query is wasted when it finished
 * after its client's deadline ({@link OpenLoop#DEADLINE_HEADER}), so it started, or ran, for a
 * client that had already given up.
 */
final class OverloadServers {

    /** The queries run, and those run for a client that had gone, since the last reset. */
    static final class Counts {
        final LongAdder queries = new LongAdder();
        final LongAdder wasted = new LongAdder();

        void reset() {
            queries.reset();
            wasted.reset();
        }
    }

    /** A running server: its port, its counters, what it shed and dropped itself, and how to stop it. */
    interface Running extends AutoCloseable {
        int port();

        /** The server's own stats worth a note (weft-ring's admitted, shed, dropped), or empty. */
        Map<String, Object> stats();

        @Override
        void close() throws Exception;
    }

    private OverloadServers() {}

    /** Borrows, runs the query, counts it; the request's client deadline is in epoch ms (0: none). */
    static void query(DataSource ds, long deadlineEpochMillis, Counts counts) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(OverloadScenario.QUERY);
        }
        counts.queries.increment(); // a query the database ran to its end
        if (deadlineEpochMillis > 0 && System.currentTimeMillis() > deadlineEpochMillis) {
            counts.wasted.increment();
        }
    }

    static long deadline(String header) {
        try {
            return header == null ? 0 : Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** {@code jetty-hikaricp}: plain Jetty on virtual threads, HikariCP with its default connection timeout (30 s). */
    static Running jettyHikari(String url, Counts counts) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(OverloadScenario.SIZE);
        config.setMinimumIdle(OverloadScenario.SIZE);
        config.setPoolName("overload-hikari");
        HikariDataSource ds = new HikariDataSource(config);
        QueuedThreadPool pool = new QueuedThreadPool();
        pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        pool.setName("jetty-hikaricp");
        Server server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        server.setHandler(
                new Handler.Abstract() { // blocking: Jetty runs it on a virtual thread
                    @Override
                    public boolean handle(Request request, Response response, Callback callback) {
                        int status = 200;
                        try {
                            query(ds, deadline(request.getHeaders().get(OpenLoop.DEADLINE_HEADER)), counts);
                        } catch (SQLException e) {
                            status = 500;
                        }
                        response.setStatus(status);
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                        response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback);
                        return true;
                    }
                });
        server.start();
        return new Running() {
            @Override
            public int port() {
                return connector.getLocalPort();
            }

            @Override
            public Map<String, Object> stats() {
                return Map.of();
            }

            @Override
            public void close() throws Exception {
                ds.close(); // fails the borrowers still waiting (up to 30 s each) so the next run starts clean
                server.stop();
            }
        };
    }

    /** Loads weft.ring (Clojure compiles it: seconds on a loaded machine, which no run should pay). */
    static void loadRing() {
        Clojure.var("clojure.core", "require").invoke(Clojure.read("weft.ring"));
    }

    private static IFn ringVar(String name) {
        loadRing();
        return Clojure.var("weft.ring", name);
    }

    private static Keyword k(String name) {
        return Keyword.intern(name);
    }

    /**
     * {@code weft-ring-unbounded} ({@code admission} false): weft-ring with weft's pool and no limit;
     * {@code weft-ring-admission}: the same with the pool-driven limiter (target wait 50 ms) and a
     * request timeout of the clients' timeout.
     */
    static Running weftRing(String url, Counts counts, boolean admission, Duration clientTimeout) {
        WeftDataSource ds = WeftDataSource.builder("overload", url)
                .maxSize(OverloadScenario.SIZE)
                .minIdle(OverloadScenario.SIZE)
                .build();
        IFn handler = new AFn() {
            @Override
            public Object invoke(Object req) {
                Object headers = ((Map<?, ?>) req).get(k("headers"));
                Object deadline = headers == null ? null : ((Map<?, ?>) headers).get(OpenLoop.DEADLINE_HEADER);
                int status = 200;
                try {
                    query(ds, deadline((String) deadline), counts);
                } catch (SQLException e) {
                    status = 500;
                }
                return PersistentArrayMap.createAsIfByAssoc(new Object[] {k("status"), status, k("body"), "ok"});
            }
        };
        Object opts = admission
                ? PersistentHashMap.create(
                        k("port"),
                        0,
                        k("host"),
                        "127.0.0.1",
                        k("limiter"),
                        PoolLimit.limiter(ds.pool(), Duration.ofMillis(50)),
                        k("request-timeout"),
                        clientTimeout)
                : PersistentHashMap.create(k("port"), 0, k("host"), "127.0.0.1");
        Object server = ringVar("run-server").invoke(handler, opts);
        IFn stats = ringVar("stats");
        IFn stop = ringVar("stop-server!");
        return new Running() {
            @Override
            public int port() {
                return ((Number) ((Map<?, ?>) server).get(k("port"))).intValue();
            }

            @Override
            public Map<String, Object> stats() {
                Map<?, ?> s = (Map<?, ?>) stats.invoke(server);
                return Map.of(
                        "admitted", s.get(k("admitted")), "shed", s.get(k("shed")), "dropped", s.get(k("dropped")));
            }

            @Override
            public void close() {
                ds.close(); // fails the borrowers still waiting, so the next run starts clean
                stop.invoke(server, PersistentHashMap.create(k("timeout"), 1000));
            }
        };
    }
}
