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
 * {@code <result.json> <port> <path> <connections> <warmup-ms> <duration-ms> <server-pid> <threads>}
 * (HTTP/1.1, see {@link LoadGenerator}) or
 * {@code ws <result.json> <port> <path> <sockets> <warmup-ms> <duration-ms> <server-pid>} (a WebSocket
 * echo, see {@link WsLoad}), runs it, writes its {@link LoadResult} to the result file (atomically:
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
            if (f[0].equals("ws") && f.length == 8) {
                System.out.println("load: " + line);
                WsLoad.Plan ws = new WsLoad.Plan(Integer.parseInt(f[2]), f[3], Integer.parseInt(f[4]), Long.parseLong(f[5]),
                        Long.parseLong(f[6]), Long.parseLong(f[7]));
                write(Path.of(f[1]), new WsLoad(ws).run());
                continue;
            }
            if (f.length != 8) {
                throw new IllegalArgumentException("a job is <result.json> <port> <path> <connections> <warmup-ms>"
                        + " <duration-ms> <server-pid> <threads>, or ws <result.json> <port> <path> <sockets> <warmup-ms>"
                        + " <duration-ms> <server-pid>; got " + line);
            }
            Path result = Path.of(f[0]);
            LoadGenerator.Plan plan = new LoadGenerator.Plan(Integer.parseInt(f[1]), f[2], Integer.parseInt(f[3]),
                    Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), Integer.parseInt(f[7]));
            System.out.println("load: " + line);
            write(result, new LoadGenerator(plan).run());
        }
    }

    /** Writes {@code r} to {@code result} atomically: the file appears complete. */
    private static void write(Path result, LoadResult r) throws java.io.IOException {
        Path tmp = result.resolveSibling(result.getFileName() + ".tmp");
        Json.write(tmp, r);
        Files.move(tmp, result, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        System.out.println("load: " + Json.string(r));
    }
}
