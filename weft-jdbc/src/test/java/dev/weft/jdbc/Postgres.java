package dev.weft.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
                            + "or build/postgres.sh run ./mvnw -pl weft-jdbc test -Dtest='*PostgresTest' (it exports WEFT_PG_URL and WEFT_PG_DIR, which these tests read)");
        }
        return url;
    }

    /** Restarts the server in place (same port and options), waiting until it accepts connections. */
    static void restart() throws IOException, InterruptedException {
        pgCtl("-m", "fast", "restart");
    }

    /**
     * Stops the server (a fast shutdown: every session is ended), waiting until it is gone; its
     * folder stays for {@link #start()}. A test that stops it must start it again in a finally.
     */
    static void stop() throws IOException, InterruptedException {
        pgCtl("-m", "fast", "stop");
    }

    /**
     * Starts the server {@link #stop()} stopped, with the options it ran with (the same port),
     * waiting until it accepts connections.
     */
    static void start() throws IOException, InterruptedException {
        pgCtl("-l", Path.of(dir(), "server.log").toString(), "-o", options(), "start");
    }

    /** Runs pg_ctl on the server's data folder, as the folder's owner, waiting at most 60 s. */
    private static void pgCtl(String... action) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.addAll(List.of(binDir() + "/pg_ctl", "-w", "-t", "60", "-D", data().toString()));
        cmd.addAll(List.of(action));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("pg_ctl " + String.join(" ", action) + " failed (exit " + p.exitValue()
                    + "; log: " + Path.of(dir(), "server.log") + ")");
        }
    }

    /**
     * The server's options but its data folder, from the postmaster.opts it wrote when it started
     * (pg_ctl restart reads the same file; pg_ctl start does not, so start passes them with -o).
     */
    private static String options() throws IOException {
        String line = Files.readString(data().resolve("postmaster.opts")).strip();
        List<String> words = new ArrayList<>();
        Matcher m = Pattern.compile("\"([^\"]*)\"").matcher(line);
        while (m.find()) {
            words.add(m.group(1));
        }
        int d = words.indexOf("-D");
        if (d >= 0) {
            words.subList(d, Math.min(words.size(), d + 2)).clear();
        }
        if (words.isEmpty()) {
            throw new IllegalStateException("no options in " + data().resolve("postmaster.opts") + ": " + line);
        }
        return String.join(" ", words);
    }

    private static Path data() {
        return Path.of(dir(), "data");
    }

    private static String dir() {
        String dir = setting("weft.pg.dir", "WEFT_PG_DIR");
        if (dir == null) {
            throw new IllegalStateException(
                    "stopping or restarting the server needs -Dweft.pg.dir (the folder build/postgres.sh start used)");
        }
        return dir;
    }

    private static String binDir() throws IOException {
        try (var dirs = Files.list(Path.of("/usr/lib/postgresql"))) {
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
