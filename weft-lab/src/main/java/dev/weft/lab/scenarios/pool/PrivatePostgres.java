package dev.weft.lab.scenarios.pool;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A private PostgreSQL server for the scenario, started and stopped by weft's build/postgres.sh
 * (the same script the database tier uses): it installs Debian's server when it is missing, or
 * fails with one line saying how. Stopped by {@link #close()} and, if the scenario's JVM is ended
 * first, by a shutdown hook.
 */
final class PrivatePostgres implements AutoCloseable {

    /** The script could not get the server binaries (exit 3): the line it printed says how. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) {
            super(message);
        }
    }

    final String url;
    private final Path script;
    private final Path dir;
    private final Thread hook;

    private PrivatePostgres(Path script, Path dir, String url) {
        this.script = script;
        this.dir = dir;
        this.url = url;
        this.hook = new Thread(this::stop, "weft-lab-postgres-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    static PrivatePostgres start(Path workDir) throws IOException, InterruptedException, Unavailable {
        Path script = findScript();
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "weft-pg-lab.");
        Path err = workDir.resolve("postgres-start.log");
        Process p = new ProcessBuilder(script.toString(), "start", dir.toString())
                .redirectError(err.toFile())
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        int status = p.waitFor();
        String why = Files.exists(err) ? Files.readString(err).trim() : "";
        if (status != 0) {
            new ProcessBuilder(script.toString(), "stop", dir.toString())
                    .start()
                    .waitFor();
            if (status == 3) {
                throw new Unavailable(why);
            }
            throw new IOException("build/postgres.sh start failed (exit " + status + "): " + why);
        }
        int at = out.indexOf("url=");
        if (at < 0) {
            throw new IOException("build/postgres.sh start printed no url: " + out);
        }
        return new PrivatePostgres(script, dir, out.substring(at + 4).trim());
    }

    private static Path findScript() throws IOException {
        List<Path> starts = new java.util.ArrayList<>();
        String home = System.getProperty("weft.home");
        if (home != null) {
            starts.add(Path.of(home));
        }
        starts.add(Path.of("").toAbsolutePath());
        try {
            starts.add(Path.of(PrivatePostgres.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI()));
        } catch (java.net.URISyntaxException | SecurityException | NullPointerException ignored) {
            // not loaded from a file: the other starting points remain
        }
        for (Path start : starts) {
            for (Path d = start; d != null; d = d.getParent()) {
                Path s = d.resolve("build/postgres.sh");
                if (Files.isExecutable(s)) {
                    return s;
                }
            }
        }
        throw new IOException(
                "build/postgres.sh not found above " + starts + "; run the lab from a weft checkout (./weft lab)");
    }

    private void stop() {
        try {
            new ProcessBuilder(script.toString(), "stop", dir.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .waitFor();
        } catch (IOException e) {
            System.err.println("could not stop the lab's PostgreSQL in " + dir + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) anyway; stop is idempotent
        }
    }
}
