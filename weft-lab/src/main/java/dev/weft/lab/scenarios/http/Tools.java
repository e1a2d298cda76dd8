package dev.weft.lab.scenarios.http;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The external load tools the scenario runs (wrk, h2load): finding them and running them bounded in time. */
final class Tools {

    private Tools() {}

    /** The executable {@code name} in a folder of the PATH, if there is one. */
    static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * Runs {@code command} and returns its output (standard error included).
     *
     * @throws IOException if it does not end within {@code timeoutSeconds} (it is then ended) or
     *                     exits with a status other than 0 (the message holds its output)
     */
    static String run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                throw new IOException(command.get(0) + " did not end within " + timeoutSeconds + " s");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(command.get(0) + " exited with status " + p.exitValue() + ": " + text.strip());
            }
            return text;
        } finally {
            p.destroyForcibly();
        }
    }

    /** A duration as wrk and h2load print it ({@code 12.5ms}: value and unit us, ms, s or m), in milliseconds. */
    static double millis(String value, String unit) {
        double v = Double.parseDouble(value);
        return switch (unit.toLowerCase(Locale.ROOT)) {
            case "us" -> v / 1000;
            case "ms" -> v;
            case "s" -> v * 1000;
            case "m" -> v * 60_000;
            default -> throw new IllegalArgumentException("unknown time unit " + unit + " in " + value + unit);
        };
    }
}
