package dev.weft.jdbc;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The configuration of a {@link WeftDataSource} made with its no-argument constructor and
 * JavaBean setters (or a {@link Properties}), until its first {@code getConnection()} starts it.
 * Each option is checked when it is set (by applying it to a probe {@link WeftDataSource.Builder},
 * whose checks and messages are the only ones), kept, and replayed on the real builder at start.
 * HikariCP's names are accepted in Properties through {@link #HIKARI_NAMES}, the one table of
 * them (the README's migration table explains the rest).
 */
final class DataSourceConfig {

    /** HikariCP's property name -> weft's (durations in milliseconds, as HikariCP takes them). */
    static final Map<String, String> HIKARI_NAMES = Map.ofEntries(
            Map.entry("jdbcUrl", "url"),
            Map.entry("maximumPoolSize", "maxSize"),
            Map.entry("minimumIdle", "minIdle"),
            Map.entry("connectionTimeout", "maxWait"),
            Map.entry("maxLifetime", "maxLifetime"),
            Map.entry("idleTimeout", "idleTimeout"),
            Map.entry("validationTimeout", "validationTimeout"),
            Map.entry("leakDetectionThreshold", "leakThreshold"),
            Map.entry("poolName", "poolName"),
            Map.entry("username", "username"),
            Map.entry("password", "password"),
            Map.entry("driverClassName", "driverClassName"));

    /** weft's option names a Properties may hold, and how each is set from its string. */
    private final Map<String, BiConsumer<DataSourceConfig, String>> byName = new LinkedHashMap<>();

    String poolName = "weft";
    String url;
    String username;
    String password;
    String driverClassName;
    DataSource dataSource;
    final Properties driverProperties = new Properties();
    /** Pool options in the order set; a second set of the same option replaces the first. */
    private final Map<String, Consumer<WeftDataSource.Builder>> options = new LinkedHashMap<>();

    private final WeftDataSource.Builder probe = WeftDataSource.builder("probe", "jdbc:weft-probe:");

    DataSourceConfig() {
        byName.put("url", (c, v) -> c.url = v);
        byName.put("username", (c, v) -> c.username = v);
        byName.put("password", (c, v) -> c.password = v);
        byName.put("driverClassName", (c, v) -> c.driverClassName = v);
        byName.put("poolName", (c, v) -> c.poolName = v);
        byName.put("maxSize", (c, v) -> c.option("maxSize", b -> b.maxSize(integer("maxSize", v))));
        byName.put("minIdle", (c, v) -> c.option("minIdle", b -> b.minIdle(integer("minIdle", v))));
        byName.put("maxCreating", (c, v) -> c.option("maxCreating", b -> b.maxCreating(integer("maxCreating", v))));
        byName.put("maxWait", (c, v) -> c.option("maxWait", b -> b.maxWait(duration("maxWait", v))));
        byName.put("maxLifetime", (c, v) -> c.option("maxLifetime", b -> b.maxLifetime(duration("maxLifetime", v))));
        byName.put("idleTimeout", (c, v) -> c.option("idleTimeout", b -> b.idleTimeout(duration("idleTimeout", v))));
        byName.put(
                "validateAfter",
                (c, v) -> c.option("validateAfter", b -> b.validateAfter(duration("validateAfter", v))));
        byName.put(
                "validationTimeout",
                (c, v) -> c.option("validationTimeout", b -> b.validationTimeout(duration("validationTimeout", v))));
        byName.put(
                "leakThreshold",
                (c, v) -> c.option("leakThreshold", b -> b.leakThreshold(duration("leakThreshold", v))));
        byName.put(
                "closeTimeout", (c, v) -> c.option("closeTimeout", b -> b.closeTimeout(duration("closeTimeout", v))));
    }

    /** Checks {@code apply} on the probe now (so a bad value fails at its setter), keeps it for start. */
    void option(String name, Consumer<WeftDataSource.Builder> apply) {
        apply.accept(probe);
        options.put(name, apply);
    }

    /**
     * Sets every key of {@code props}: weft's option names, HikariCP's (see {@link #HIKARI_NAMES}),
     * and {@code dataSource.<key>} for a driver connection property.
     *
     * @throws IllegalArgumentException naming the first unknown key, before anything is set
     */
    void apply(Properties props) {
        Map<String, String> resolved = new LinkedHashMap<>();
        for (String key : props.stringPropertyNames()) {
            String name = key.startsWith("dataSource.") ? key : HIKARI_NAMES.getOrDefault(key, key);
            if (!name.startsWith("dataSource.") && !byName.containsKey(name)) {
                throw new IllegalArgumentException(
                        "WeftDataSource has no property \"" + key + "\"; weft's are "
                                + byName.keySet() + ", HikariCP's accepted ones "
                                + new java.util.TreeSet<>(HIKARI_NAMES.keySet())
                                + ", and dataSource.<name> for a driver property (see weft-jdbc's README for the other HikariCP settings)");
            }
            resolved.put(name, props.getProperty(key));
        }
        resolved.forEach((name, value) -> {
            if (name.startsWith("dataSource.")) {
                driverProperties.setProperty(name.substring("dataSource.".length()), value);
            } else {
                byName.get(name).accept(this, value);
            }
        });
    }

    /**
     * Builds the builder the data source starts from: everything checked first (the driver class
     * loads, some driver accepts the URL), so that a failure leaves nothing started.
     *
     * @throws SQLException naming the property at fault and the fix
     */
    WeftDataSource.Builder builder() throws SQLException {
        WeftDataSource.Builder b;
        if (dataSource != null) {
            if (url != null) {
                throw new SQLException(
                        "WeftDataSource has both a dataSource and a url (\"" + url + "\"); set one of them");
            }
            b = WeftDataSource.builder(poolName, dataSource);
        } else {
            if (url == null || url.isBlank()) {
                throw new SQLException(
                        "WeftDataSource has no url: call setUrl(\"jdbc:postgresql://127.0.0.1:5432/app\") "
                                + "(or setJdbcUrl, or setDataSource with a driver's DataSource) before getConnection()");
            }
            if (driverClassName != null) {
                try {
                    Class.forName(
                            driverClassName,
                            true,
                            Thread.currentThread().getContextClassLoader() != null
                                    ? Thread.currentThread().getContextClassLoader()
                                    : DataSourceConfig.class.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    throw new SQLException(
                            "WeftDataSource's driverClassName \"" + driverClassName
                                    + "\" cannot be loaded; put the driver's jar on the classpath or fix the name",
                            "08001",
                            e);
                }
            }
            try {
                DriverManager.getDriver(url);
            } catch (SQLException e) {
                throw new SQLException(
                        "no JDBC driver on the classpath accepts WeftDataSource's url \"" + url
                                + "\"; add the driver's jar (e.g. org.postgresql:postgresql) or set driverClassName",
                        "08001",
                        e);
            }
            b = WeftDataSource.builder(poolName, url);
            if (username != null) {
                b.property("user", username);
            }
            if (password != null) {
                b.property("password", password);
            }
            for (String k : driverProperties.stringPropertyNames()) {
                b.property(k, driverProperties.getProperty(k));
            }
        }
        for (Consumer<WeftDataSource.Builder> o : options.values()) {
            o.accept(b);
        }
        return b;
    }

    private static int integer(String option, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number; got \"" + v + "\"");
        }
    }

    /** A duration: milliseconds ("30000", HikariCP's unit), "30s", "500ms", "2m", "1h", or ISO-8601 ("PT30S"). */
    static Duration duration(String option, String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.startsWith("pt") || s.startsWith("p")) {
                return Duration.parse(v.trim());
            }
            if (s.endsWith("ms")) {
                return Duration.ofMillis(
                        Long.parseLong(s.substring(0, s.length() - 2).trim()));
            }
            if (s.endsWith("s")) {
                return Duration.ofSeconds(
                        Long.parseLong(s.substring(0, s.length() - 1).trim()));
            }
            if (s.endsWith("m")) {
                return Duration.ofMinutes(
                        Long.parseLong(s.substring(0, s.length() - 1).trim()));
            }
            if (s.endsWith("h")) {
                return Duration.ofHours(
                        Long.parseLong(s.substring(0, s.length() - 1).trim()));
            }
            return Duration.ofMillis(Long.parseLong(s));
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException(
                    option + " takes a duration: milliseconds (\"30000\"), \"30s\", \"500ms\", "
                            + "\"2m\", \"1h\" or ISO-8601 (\"PT30S\"); got \"" + v + "\"");
        }
    }
}
