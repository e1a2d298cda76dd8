package dev.weft.jdbc;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The private PostgreSQL server the database tier started with build/postgres.sh: its JDBC URL
 * and folder come as -Dweft.pg.url / -Dweft.pg.dir (or WEFT_PG_URL / WEFT_PG_DIR).
 */
final class Postgres {

    private Postgres() {}

    static String url() {
        String url = setting("weft.pg.url", "WEFT_PG_URL");
        if (url == null) {
            throw new IllegalStateException(
                    "no PostgreSQL server for *PostgresTest: run ./weft test --tier database, "
                            + "or build/postgres.sh run mvn -pl weft-jdbc test -Dtest='*PostgresTest' -Dweft.pg.url=\\$WEFT_PG_URL -Dweft.pg.dir=\\$WEFT_PG_DIR");
        }
        return url;
    }

    /** Restarts the server in place (same port and options), waiting until it accepts connections. */
    static void restart() throws IOException, InterruptedException {
        String dir = setting("weft.pg.dir", "WEFT_PG_DIR");
        if (dir == null) {
            throw new IllegalStateException(
                    "restarting the server needs -Dweft.pg.dir (the folder build/postgres.sh start used)");
        }
        String bin = binDir();
        List<String> cmd = new java.util.ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.addAll(List.of(
                bin + "/pg_ctl", "-w", "-t", "60", "-D", Path.of(dir, "data").toString(), "-m", "fast", "restart"));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("pg_ctl restart failed (exit " + p.exitValue() + ")");
        }
    }

    private static String binDir() throws IOException {
        try (var dirs = java.nio.file.Files.list(Path.of("/usr/lib/postgresql"))) {
            return dirs.map(d -> d.resolve("bin"))
                    .filter(d -> d.resolve("pg_ctl").toFile().canExecute())
                    .map(Path::toString)
                    .sorted()
                    .reduce((a, b) -> b)
                    .orElseThrow(() -> new IllegalStateException("no pg_ctl under /usr/lib/postgresql/*/bin"));
        }
    }

    private static String setting(String property, String env) {
        String v = System.getProperty(property);
        return v != null && !v.isBlank() ? v : System.getenv(env);
    }
}
