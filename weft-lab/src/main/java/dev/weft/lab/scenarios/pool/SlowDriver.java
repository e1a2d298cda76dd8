package dev.weft.lab.scenarios.pool;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * A JDBC driver for URLs {@code jdbc:weft-slow:<ms>:<real jdbc url>} that waits {@code ms} before
 * opening a real connection: the slow connection creation of the cold-start part, the same for
 * every pool (they all open connections through DriverManager).
 */
public final class SlowDriver implements Driver {

    static final String PREFIX = "jdbc:weft-slow:";

    static {
        try {
            DriverManager.registerDriver(new SlowDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static String url(long ms, String realUrl) {
        return PREFIX + ms + ":" + realUrl;
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        String rest = url.substring(PREFIX.length());
        int colon = rest.indexOf(':');
        long ms = Long.parseLong(rest.substring(0, colon));
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while opening a slow connection", "08001", e);
        }
        return DriverManager.getConnection(rest.substring(colon + 1), info);
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(PREFIX);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }
}
