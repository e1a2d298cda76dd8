package dev.weft.jdbc;

import dev.weft.pool.Lease;
import dev.weft.pool.Slot;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;

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

    private final Connection delegate;
    /** The driver statements made through this handle and not closed yet; null until the first. */
    private ArrayList<Statement> statements;
    private boolean closed;

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
            throw new SQLException("this connection of pool \"" + poolName() + "\" was already closed (returned to the pool); "
                    + "get a new one from the DataSource", "08003");
        }
    }

    /** {@link #check()} for setClientInfo, whose only declared exception is SQLClientInfoException. */
    final void checkClientInfo() throws java.sql.SQLClientInfoException {
        if (closed) {
            throw new java.sql.SQLClientInfoException("this connection of pool \"" + poolName()
                    + "\" was already closed (returned to the pool); get a new one from the DataSource", "08003", 0, null);
        }
    }

    /** Notes a driver error: a connection-level one marks the connection broken. Returns {@code e}. */
    final SQLException failed(SQLException e) {
        if (!closed && fatal(e)) {
            PooledConnection p = get();
            if (!p.broken) {
                p.broken = true;
                pool().evictIdle();    // the server went away: its other idle connections are gone too
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
        if (statements == null) {
            statements = new ArrayList<>(4);
        }
        statements.add(statement.delegateStatement());
        return statement;
    }

    /** The borrower closed {@code s} itself. */
    final void forget(Statement s) {
        if (statements != null) {
            for (int i = statements.size() - 1; i >= 0; i--) {   // the latest first: usually the one
                if (statements.get(i) == s) {
                    statements.remove(i);
                    return;
                }
            }
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
        if (statements != null) {
            for (Statement s : statements) {
                try {
                    s.close();
                } catch (SQLException e) {
                    if (fatal(e)) {
                        p.broken = true;
                    }
                }
            }
            statements = null;
        }
        end(p.broken);
    }

    @Override
    public final String toString() {
        return "weft-jdbc connection of pool \"" + poolName() + "\"" + (closed ? " (returned)" : "");
    }
}
