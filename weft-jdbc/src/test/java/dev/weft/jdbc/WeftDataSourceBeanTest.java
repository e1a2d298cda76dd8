package dev.weft.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.jdbc.stub.StubDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** WeftDataSource configured as a JavaBean or from Properties, the way containers and Spring do. */
class WeftDataSourceBeanTest {

    @Test
    void settersConfigureAndTheFirstGetConnectionStarts() throws Exception {
        StubDataSource stub = new StubDataSource();
        WeftDataSource ds = new WeftDataSource();
        ds.setDataSource(stub);
        ds.setPoolName("bean");
        ds.setMaxSize(3);
        ds.setMaxWait(Duration.ofMillis(300));
        assertEquals(0, stub.opened.get(), "nothing opened before the first getConnection");
        try (ds;
                Connection c = ds.getConnection()) {
            assertTrue(c.isValid(1));
            assertEquals("bean", ds.stats().pool());
            assertEquals(3, ds.stats().maxSize());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ds.setMaxSize(5));
            assertTrue(e.getMessage().contains("has started") && e.getMessage().contains("maxSize"), e.getMessage());
        }
        assertTrue(ds.isClosed());
    }

    @Test
    void aUrlWithUserAndPasswordStartsOverTheDriverThatAcceptsIt() throws Exception {
        try (WeftDataSource ds = new WeftDataSource()) {
            ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/nothing-listens-here");
            ds.setUsername("app");
            ds.setPassword("secret");
            ds.setDriverClassName("org.postgresql.Driver");
            ds.setMaxWait(Duration.ofMillis(200));
            assertEquals("jdbc:postgresql://127.0.0.1:1/nothing-listens-here", ds.getUrl());
            SQLTransientConnectionException e = assertThrows(SQLTransientConnectionException.class, ds::getConnection);
            assertTrue(e.getMessage().contains("pool \"weft\""), e.getMessage());
        }
    }

    @Test
    void aUrlNoDriverAcceptsFailsClearlyAndStartsNothing() throws Exception {
        WeftDataSource ds = new WeftDataSource();
        ds.setUrl("jdbc:weft-no-such-driver://127.0.0.1/x");
        SQLException e = assertThrows(SQLException.class, ds::getConnection);
        assertTrue(
                e.getMessage().contains("no JDBC driver") && e.getMessage().contains("jdbc:weft-no-such-driver"),
                e.getMessage());
        assertFalse(ds.isClosed());
        ds.setMaxSize(2); // not started: still configurable
        ds.close();
        assertThrows(SQLNonTransientConnectionException.class, ds::getConnection);
    }

    @Test
    void missingUrlAndUnloadableDriverClassNameTheProperty() {
        WeftDataSource none = new WeftDataSource();
        SQLException e = assertThrows(SQLException.class, none::getConnection);
        assertTrue(e.getMessage().contains("setUrl"), e.getMessage());
        WeftDataSource bad = new WeftDataSource();
        bad.setUrl("jdbc:postgresql://127.0.0.1:1/x");
        bad.setDriverClassName("com.example.NoSuchDriver");
        e = assertThrows(SQLException.class, bad::getConnection);
        assertTrue(e.getMessage().contains("driverClassName \"com.example.NoSuchDriver\""), e.getMessage());
    }

    @Test
    void badValuesFailAtTheirSetterWithTheOptionsName() {
        WeftDataSource ds = new WeftDataSource();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ds.setMaxSize(0));
        assertTrue(e.getMessage().contains("maxSize"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ds.setMaxWait(Duration.ofSeconds(-1)));
    }

    @Test
    void aBuilderMadeDataSourceRefusesSetters() {
        try (WeftDataSource ds =
                WeftDataSource.builder("b", new StubDataSource()).build()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ds.setUrl("jdbc:x:y"));
            assertTrue(e.getMessage().contains("builder"), e.getMessage());
        }
    }

    @Test
    void propertiesTakeWeftsNamesAndHikariCPs() throws Exception {
        Properties p = new Properties();
        p.setProperty("maximumPoolSize", "3"); // HikariCP's name
        p.setProperty("connectionTimeout", "250"); // HikariCP's, in ms
        p.setProperty("minIdle", "1"); // weft's
        p.setProperty("idleTimeout", "10m");
        p.setProperty("poolName", "props");
        WeftDataSource ds = new WeftDataSource(p);
        ds.setDataSource(new StubDataSource());
        try (ds) {
            assertEquals(3, ds.stats().maxSize());
            Connection[] held = {ds.getConnection(), ds.getConnection(), ds.getConnection()};
            long start = System.nanoTime();
            assertThrows(SQLTransientConnectionException.class, ds::getConnection);
            assertTrue(System.nanoTime() - start >= Duration.ofMillis(250).toNanos(), "waited connectionTimeout");
            for (Connection c : held) {
                c.close();
            }
        }
    }

    @Test
    void anUnknownOrBadPropertyIsNamedAndNothingIsSet() {
        Properties p = new Properties();
        p.setProperty("maxSize", "4");
        p.setProperty("maximumPoolSise", "3");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new WeftDataSource(p));
        assertTrue(
                e.getMessage().contains("\"maximumPoolSise\"") && e.getMessage().contains("maximumPoolSize"),
                e.getMessage());
        Properties q = new Properties();
        q.setProperty("maxWait", "soon");
        e = assertThrows(IllegalArgumentException.class, () -> new WeftDataSource(q));
        assertTrue(e.getMessage().contains("maxWait") && e.getMessage().contains("soon"), e.getMessage());
    }
}
