package dev.weft.jdbc;

import dev.weft.pool.Lease;
import dev.weft.pool.Slot;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The hand-written half of what a borrower holds (the generated {@link WeftConnection} is the
 * other): a {@link Lease} of one pooled physical connection, so a borrow allocates this one
 * object. {@code close()} closes the statements the borrower left open, then returns the
 * connection; setters the pool must undo are noted in {@link PooledConnection}; an error whose
 * SQLState says the connection itself failed (class {@code 08}, or PostgreSQL's administrator
 * shutdown {@code 57P0x}) marks it broken, so the pool destroys it instead of handing it out
 * again, and destroys the idle ones too (they talked to the same server). Any use after close
 * throws (SQLState 08003). One thread at a time, as JDBC connections are used.
 */
abstract class ConnectionLease extends Lease<PooledConnection> {

    private static final VarHandle STATEMENTS;

    static {
        try {
            STATEMENTS = MethodHandles.lookup().findVarHandle(ConnectionLease.class, "statements", Open.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Connection delegate;
    /** The driver statements made through this handle and not closed yet; null until the first. */
    private volatile Open statements;

    private boolean closed;

    /**
     * The statements made through this handle and not yet seen closed, made and closed from any
     * thread (HikariCP's ConcurrentCloseConnectionTest does). A statement the borrower closes stays
     * listed until the list is next compacted (in {@link #track}, once it doubled) or
     * the handle closes: a statement's close then takes no lock, and the list stays within about
     * twice the statements open at once (decision 0609).
     */
    private static final class Open {
        /** The size at which {@link #track} first drops the closed statements. */
        static final int FIRST_COMPACTION = 16;

        final ReentrantLock lock = new ReentrantLock();
        final ArrayList<Statement> list = new ArrayList<>(4);
        int compactAt = FIRST_COMPACTION;
    }

    ConnectionLease(Slot<PooledConnection> slot) {
        super(slot);
        this.delegate = get().physical;
    }

    /** Whether {@code e} says the connection itself is gone, not just this statement. */
    static boolean fatal(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                String state = s.getSQLState();
                if (state.startsWith("08") || state.startsWith("57P0")) {
                    return true;
                }
            }
        }
        return false;
    }

    final Connection delegate() {
        return delegate;
    }

    final PooledConnection pooled() {
        return get();
    }

    /** Refuses use after close. */
    final void check() throws SQLException {
        if (closed) {
            throw new SQLException(
                    "this connection of pool \"" + poolName() + "\" was already closed (returned to the pool); "
                            + "get a new one from the DataSource",
                    "08003");
        }
    }

    /** {@link #check()} for setClientInfo, whose only declared exception is SQLClientInfoException. */
    final void checkClientInfo() throws java.sql.SQLClientInfoException {
        if (closed) {
            throw new java.sql.SQLClientInfoException(
                    "this connection of pool \"" + poolName()
                            + "\" was already closed (returned to the pool); get a new one from the DataSource",
                    "08003",
                    0,
                    null);
        }
    }

    /** Notes a driver error: a connection-level one marks the connection broken. Returns {@code e}. */
    final SQLException failed(SQLException e) {
        if (!closed && fatal(e)) {
            PooledConnection p = get();
            if (!p.broken) {
                p.broken = true;
                pool().evictIdle(); // the server went away: its other idle connections are gone too
            }
        }
        return e;
    }

    /** The borrower reached a driver object: it may change the physical connection directly. */
    final void unwrapped() {
        if (!closed) {
            get().autoCommitTouched = true;
        }
    }

    /** Remembers a statement so that close() closes it; returns it. */
    final <S extends WeftStatementLike> S track(S statement) {
        Open open = statements;
        if (open == null && !STATEMENTS.compareAndSet(this, null, open = new Open())) {
            open = statements;
        }
        open.lock.lock();
        try {
            if (open.list.size() >= open.compactAt) {
                open.list.removeIf(ConnectionLease::closedOrUnusable);
                open.compactAt = Math.max(Open.FIRST_COMPACTION, 2 * open.list.size());
            }
            open.list.add(statement.delegateStatement());
        } finally {
            open.lock.unlock();
        }
        return statement;
    }

    /** For the list of open statements: closed, or failing to say (so no use keeping it). */
    private static boolean closedOrUnusable(Statement s) {
        try {
            return s.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    /** How many statements the handle still lists (tests: the list stays bounded). */
    final int listedStatements() {
        Open open = statements;
        if (open == null) {
            return 0;
        }
        open.lock.lock();
        try {
            return open.list.size();
        } finally {
            open.lock.unlock();
        }
    }

    final boolean isClosedHandle() throws SQLException {
        return closed || delegate.isClosed();
    }

    final void abortHandle() {
        if (!closed) {
            get().broken = true;
        }
        closeHandle();
    }

    final void closeHandle() {
        if (closed) {
            return;
        }
        closed = true;
        PooledConnection p = get();
        Open open = statements;
        if (open != null) {
            Statement[] left;
            open.lock.lock();
            try {
                left = open.list.toArray(new Statement[0]);
                open.list.clear();
            } finally {
                open.lock.unlock();
            }
            for (Statement s : left) {
                try {
                    if (!s.isClosed()) { // the borrower's own closes left them listed: not twice
                        s.close();
                    }
                } catch (SQLException e) {
                    if (fatal(e)) {
                        p.broken = true;
                    }
                }
            }
        }
        end(p.broken);
    }

    @Override
    public final String toString() {
        return "weft-jdbc connection of pool \"" + poolName() + "\"" + (closed ? " (returned)" : "");
    }
}
