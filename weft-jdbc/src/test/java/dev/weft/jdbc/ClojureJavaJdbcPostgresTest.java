package dev.weft.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import clojure.lang.RT;
import clojure.lang.Var;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Clojure side of weft-jdbc on a real PostgreSQL (database tier): org.clojure/java.jdbc over a
 * {@link WeftDataSource} through a {@code {:datasource ds}} db-spec, with weft.pool and
 * weft.thread/vfuture. The Clojure code is the namespace {@code weft.jdbc.clojure-postgres}
 * (src/test/resources/weft/jdbc/clojure_postgres.clj); its functions return what they saw as data
 * and the assertions are here, so the tier runs and counts this class like the Java ones.
 */
class ClojureJavaJdbcPostgresTest {

    private static final String NS = "weft.jdbc.clojure-postgres";
    private static IFn equiv;

    @BeforeAll
    static void loadNamespace() {
        // The namespace sets *warn-on-reflection*, as every weft namespace does; a warning fails here.
        StringWriter err = new StringWriter();
        Var.pushThreadBindings(RT.map(RT.ERR, new PrintWriter(err, true)));
        try {
            Clojure.var("clojure.core", "require").invoke(Clojure.read(NS));
        } finally {
            Var.popThreadBindings();
        }
        assertEquals("", err.toString(), NS + " must load without reflection warnings");
        equiv = Clojure.var("clojure.core", "=");
    }

    private static Object call(String fn, Object... args) {
        IFn f = Clojure.var(NS, fn);
        return switch (args.length) {
            case 1 -> f.invoke(args[0]);
            case 2 -> f.invoke(args[0], args[1]);
            case 3 -> f.invoke(args[0], args[1], args[2]);
            default -> throw new IllegalArgumentException("arity " + args.length);
        };
    }

    /** The value at a path of keywords in nested Clojure maps. */
    private static Object get(Object m, String... path) {
        Object v = m;
        for (String k : path) {
            v = ((Map<?, ?>) v).get(Keyword.intern(k));
        }
        return v;
    }

    private static long num(Object m, String... path) {
        return ((Number) get(m, path)).longValue();
    }

    /** Clojure equality (1 and 1N and (int) 1 are equal; vectors equal lists), with the EDN expected. */
    private static void assertClj(String expectedEdn, Object actual, String what) {
        Object expected = Clojure.read(expectedEdn);
        assertTrue(
                (Boolean) equiv.invoke(expected, actual),
                what + ": expected " + expectedEdn + ", got " + RT.printString(actual));
    }

    /**
     * Runs {@code fn} of the namespace on a fresh data source of at most {@code maxSize} connections
     * tagged {@code app}, then closes it through weft.pool/close! and checks nothing is left: every
     * connection back, the data source closed, no backend of {@code app} on the server.
     */
    private static Object run(String app, int maxSize, String fn, Object... more) {
        WeftDataSource ds = (WeftDataSource) call("data-source", Postgres.url(), app, maxSize);
        try {
            return more.length == 0 ? call(fn, ds) : call(fn, ds, more[0], more[1]);
        } finally {
            Object closed = call("close-data-source", Postgres.url(), ds, app);
            assertClj(
                    "{:all-returned true :closed true :query-after-close \"08003\" :backends-left 0}",
                    closed,
                    "after weft.pool/close! of " + app);
        }
    }

    @Test
    void queriesThroughJavaJdbc() {
        Object r = run("weft-clj-queries", 2, "queries");
        assertClj("42", get(r, "sum"), "a parameterised select");
        assertClj("[{:id 1 :name \"one\"} {:id 2 :name \"two\"}]", get(r, "rows"), "rows written with insert-multi!");
        Object pids = get(r, "pids");
        assertEquals(
                1,
                RT.count(Clojure.var("clojure.core", "distinct").invoke(pids)),
                "queries one after another reuse one physical connection: " + pids);
        assertEquals(1, num(r, "stats", "created"), "one connection created: " + get(r, "stats"));
        assertEquals(0, num(r, "stats", "in-use"), "every connection returned: " + get(r, "stats"));
    }

    @Test
    void transactionsCommitAndRollBack() {
        Object r = run("weft-clj-tx", 2, "transactions");
        assertClj(
                "{:message \"the body failed\" :seen-inside [1 2]}",
                get(r, "thrown"),
                "the throwing body saw its own insert, and the exception reached the caller");
        assertClj("\"23505\"", get(r, "sql-error"), "a duplicate key fails the transaction with PostgreSQL's SQLState");
        assertClj("[1]", get(r, "ids"), "only the committed transaction's row stayed: both failed ones rolled back");
        assertEquals(0, num(r, "stats", "in-use"), "every connection returned: " + get(r, "stats"));
    }

    @Test
    void whatABorrowerChangedIsPutBackForTheNext() {
        Object r = run("weft-clj-reset", 1, "reset-between-borrowers");
        Object fresh = get(r, "fresh");
        assertClj(
                "{:auto-commit true :read-only false :isolation " + Connection.TRANSACTION_READ_COMMITTED
                        + " :server_isolation \"read committed\" :server_read_only \"off\" :rows 0}",
                RT.dissoc(fresh, Keyword.intern("pid")),
                "a fresh connection");
        long pid = num(fresh, "pid");

        assertClj(
                "{:server_isolation \"serializable\" :rows 1}",
                get(r, "open-transaction", "inside"),
                "the borrower's serializable transaction saw its own uncommitted row");
        assertClj(
                "{:server_read_only \"on\" :insert-error \"25006\"}",
                get(r, "read-only", "inside"),
                "the borrower's read-only transaction refused a write");
        assertClj(
                "{:server_isolation \"serializable\" :server_read_only \"on\"}",
                get(r, "java-jdbc-failed", "inside"),
                "java.jdbc's :isolation and :read-only? took effect inside its transaction");

        for (String borrower : new String[] {"open-transaction", "read-only", "java-jdbc-failed"}) {
            Object next = get(r, borrower, "next");
            assertEquals(pid, num(next, "pid"), "the same backend after " + borrower + " (a pool of one)");
            assertClj(
                    RT.printString(RT.dissoc(fresh, Keyword.intern("pid"))),
                    RT.dissoc(next, Keyword.intern("pid")),
                    "the next borrower after " + borrower + " sees a fresh connection's state (no row left either)");
        }
        assertEquals(1, num(r, "stats", "created"), "no connection was replaced to get there: " + get(r, "stats"));
        assertEquals(0, num(r, "stats", "destroyed"), "no connection was destroyed to get there: " + get(r, "stats"));
    }

    @Test
    void twoHundredVirtualThreadsThroughFiveConnections() {
        String app = "weft-clj-concurrent";
        int n = 200;
        int max = 5;
        Object r = run(app, max, "concurrent", app, n);
        assertEquals(n, num(r, "results"), "every vfuture returned a row");
        assertEquals(0, num(r, "wrong"), "every vfuture got its own answer");
        assertEquals(Boolean.TRUE, get(r, "all-virtual"), "every query ran on a virtual thread");
        assertTrue(num(r, "min-open") >= 1, "each query saw at least its own backend: " + RT.printString(r));
        assertTrue(
                num(r, "max-open") <= max,
                "no query saw more than " + max + " backends of the pool in pg_stat_activity: " + RT.printString(r));
        assertTrue(
                num(r, "distinct-pids") <= max,
                "at most " + max + " backends served the queries: " + RT.printString(r));
        Object stats = get(r, "stats");
        assertTrue(num(stats, "created") <= max, "at most " + max + " connections created: " + RT.printString(stats));
        assertEquals(0, num(stats, "destroyed"), "none destroyed: " + RT.printString(stats));
        assertEquals(n, num(stats, "borrows"), "one borrow per query: " + RT.printString(stats));
        assertEquals(0, num(stats, "in-use"), "every connection returned: " + RT.printString(stats));
        assertEquals(0, num(stats, "timeouts"), "no borrow timed out: " + RT.printString(stats));
    }
}
