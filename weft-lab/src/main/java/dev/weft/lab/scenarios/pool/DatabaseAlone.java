package dev.weft.lab.scenarios.pool;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A query's limit as the machine gives it (decision 0840): {@code size} connections held one per
 * virtual thread, no pool, each sending the query (the pool scenario's {@code select pg_sleep(0.01)},
 * or the overload scenario's own) back to back and timing its own queries. Little's law with the service time measured: the limit is {@code size} / the mean
 * time of one query, so it moves with whatever lengthens a query on this machine at this moment (the
 * server's sleep overshooting, the round trip, a carrier or a server process waiting for a core), which
 * every pool pays alike and no pool can win back.
 *
 * <p>Each connection's first query is not counted: it wakes that connection's server process, which
 * has slept since the last measurement. A connection's figure runs from its second query's start to
 * its last query's end, so neither the threads' start nor the last query's tail dilutes it.
 */
final class DatabaseAlone implements AutoCloseable {

    /** One measurement: the mean time of one query, and the rate {@code size} connections give at it. */
    record Measured(double serviceMs, double limitQps) {}

    private final List<Connection> connections = new ArrayList<>();
    private final String query;

    /** The pool scenario's steady query on {@code size} connections to {@code url}, open until {@link #close()}. */
    DatabaseAlone(String url, int size) throws SQLException {
        this(url, size, PoolScenario.QUERY);
    }

    /** {@code query} on {@code size} connections to {@code url}; they stay open until {@link #close()}. */
    DatabaseAlone(String url, int size, String query) throws SQLException {
        this.query = query;
        try {
            for (int i = 0; i < size; i++) {
                connections.add(DriverManager.getConnection(url));
            }
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    /**
     * Runs {@code perConnection} counted queries on every connection at once (one more first, not
     * counted) and returns the mean query time over them all.
     *
     * @throws IllegalArgumentException when {@code perConnection} is less than 1
     */
    Measured measure(int perConnection) throws Exception {
        if (perConnection < 1) {
            throw new IllegalArgumentException("perConnection must be at least 1, was " + perConnection);
        }
        long[] nanos = new long[connections.size()];
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < connections.size(); i++) {
                Connection c = connections.get(i);
                int slot = i;
                running.add(ex.submit(() -> {
                    query(c);
                    long t0 = System.nanoTime();
                    for (int q = 0; q < perConnection; q++) {
                        query(c);
                    }
                    nanos[slot] = System.nanoTime() - t0;
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(); // a failed query fails the measurement, with its cause
            }
        }
        double serviceMs = Arrays.stream(nanos).average().orElseThrow() / perConnection / 1e6;
        return new Measured(serviceMs, connections.size() / (serviceMs / 1000));
    }

    /** The query as a pool's borrower sends it: a new statement each time. */
    private void query(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(query);
        }
    }

    @Override
    public void close() {
        for (Connection c : connections) {
            try {
                c.close();
            } catch (SQLException e) {
                // closing at the end of the part: a connection the server already dropped has nothing left to free
            }
        }
        connections.clear();
    }
}
