package dev.weft.jdbc;

import dev.weft.pool.Lease;
import dev.weft.pool.Pool;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What a borrower holds: a {@link Connection} proxy over one leased physical connection.
 * {@code close()} returns it to the pool (after closing the statements it opened); setters the
 * pool must undo are noted; an error whose SQLState says the connection itself failed (class
 * {@code 08}, or PostgreSQL's administrator shutdown {@code 57P0x}) marks it broken, so the pool
 * destroys it instead of handing it out again, and destroys the idle ones too (they talked to the
 * same server). Any use after close throws.
 */
final class ConnectionHandle implements InvocationHandler {

    private final Pool<PooledConnection> pool;
    private final Lease<PooledConnection> lease;
    private final PooledConnection pooled;
    private final List<Statement> statements = new ArrayList<>();
    private Connection proxy;
    private boolean closed;

    private ConnectionHandle(Pool<PooledConnection> pool, Lease<PooledConnection> lease) {
        this.pool = pool;
        this.lease = lease;
        this.pooled = lease.get();
    }

    static Connection wrap(Pool<PooledConnection> pool, Lease<PooledConnection> lease) {
        ConnectionHandle h = new ConnectionHandle(pool, lease);
        h.proxy = (Connection) Proxy.newProxyInstance(ConnectionHandle.class.getClassLoader(),
                new Class<?>[] {Connection.class}, h);
        return h.proxy;
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

    @Override
    public Object invoke(Object self, Method m, Object[] args) throws Throwable {
        String name = m.getName();
        switch (name) {
            case "close" -> {
                close();
                return null;
            }
            case "isClosed" -> {
                return closed || pooled.physical.isClosed();
            }
            case "toString" -> {
                return "weft-jdbc connection of pool \"" + pool.name() + "\"" + (closed ? " (returned)" : "");
            }
            case "hashCode" -> {
                return System.identityHashCode(self);
            }
            case "equals" -> {
                return self == args[0];
            }
            case "unwrap" -> {
                Class<?> iface = (Class<?>) args[0];
                if (iface.isInstance(self)) {
                    return self;
                }
                pooled.autoCommitTouched = true;   // the borrower may change the physical connection directly
                return pooled.physical.unwrap(iface);
            }
            case "isWrapperFor" -> {
                Class<?> iface = (Class<?>) args[0];
                return iface.isInstance(self) || pooled.physical.isWrapperFor(iface);
            }
            case "abort" -> {
                pooled.broken = true;
                close();
                return null;
            }
            default -> {
            }
        }
        if (closed) {
            throw new SQLException("this connection of pool \"" + pool.name() + "\" was already closed (returned to the pool); "
                    + "get a new one from the DataSource", "08003");
        }
        switch (name) {
            case "setAutoCommit" -> pooled.autoCommitTouched = true;
            case "setTransactionIsolation" -> pooled.isolationChanged = true;
            case "setReadOnly" -> pooled.readOnlyChanged = true;
            case "setSchema" -> pooled.schemaChanged = true;
            case "setCatalog" -> pooled.catalogChanged = true;
            default -> {
            }
        }
        Object result = call(pooled.physical, m, args);
        if (result instanceof Statement s) {
            Class<?> type = s instanceof CallableStatement ? CallableStatement.class
                    : s instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
            statements.add(s);
            return Proxy.newProxyInstance(ConnectionHandle.class.getClassLoader(), new Class<?>[] {type},
                    (p, sm, sargs) -> switch (sm.getName()) {
                        case "getConnection" -> proxy;
                        case "close" -> {
                            statements.remove(s);
                            yield call(s, sm, sargs);
                        }
                        case "unwrap" -> {
                            if (((Class<?>) sargs[0]).isInstance(p)) {
                                yield p;
                            }
                            pooled.autoCommitTouched = true;   // its getConnection() is the physical one
                            yield s.unwrap((Class<?>) sargs[0]);
                        }
                        case "isWrapperFor" -> ((Class<?>) sargs[0]).isInstance(p) || s.isWrapperFor((Class<?>) sargs[0]);
                        case "hashCode" -> System.identityHashCode(p);
                        case "equals" -> p == sargs[0];
                        default -> call(s, sm, sargs);
                    });
        }
        return result;
    }

    private Object call(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException s && fatal(s) && !pooled.broken) {
                pooled.broken = true;
                pool.evictIdle();   // the server went away: its other idle connections are gone too
            }
            throw cause;
        }
    }

    private void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Statement s : statements) {
            try {
                s.close();
            } catch (SQLException e) {
                if (fatal(e)) {
                    pooled.broken = true;
                }
            }
        }
        statements.clear();
        if (pooled.broken) {
            lease.invalidate();
        } else {
            lease.close();
        }
    }
}
