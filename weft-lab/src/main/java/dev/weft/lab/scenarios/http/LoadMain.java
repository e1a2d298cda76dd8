package dev.weft.lab.scenarios.http;

import dev.weft.lab.report.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The built-in load generator's JVM. It reads one job per line from standard input,
 * {@code <result.json> <port> <path> <connections> <warmup-ms> <duration-ms> <server-pid> <threads>},
 * runs it (see {@link LoadGenerator}), writes its {@link LoadResult} to the result file (atomically:
 * the file appears complete), and exits at the end of its input. Every job is bounded in time, so
 * the JVM never outlives the scenario that feeds it; the lab also ends it by PID.
 */
public final class LoadMain {

    private LoadMain() {
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.strip().split(" ");
            if (f.length != 8) {
                throw new IllegalArgumentException("a job is <result.json> <port> <path> <connections> <warmup-ms>"
                        + " <duration-ms> <server-pid> <threads>; got " + line);
            }
            Path result = Path.of(f[0]);
            LoadGenerator.Plan plan = new LoadGenerator.Plan(Integer.parseInt(f[1]), f[2], Integer.parseInt(f[3]),
                    Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), Integer.parseInt(f[7]));
            System.out.println("load: " + line);
            LoadResult r = new LoadGenerator(plan).run();
            Path tmp = result.resolveSibling(result.getFileName() + ".tmp");
            Json.write(tmp, r);
            Files.move(tmp, result, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            System.out.println("load: " + Json.string(r));
        }
    }
}
