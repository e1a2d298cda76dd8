package dev.weft.lab.scenarios.http;

import dev.weft.lab.ChildJvm;
import dev.weft.lab.report.Json;

/**
 * The built-in load generator's JVM, a {@link ChildJvm}. It reads one job per line from standard input,
 * {@code <port> <path> <connections> <warmup-ms> <duration-ms> <server-pid> <threads>}
 * (HTTP/1.1, see {@link LoadGenerator}) or
 * {@code ws <port> <path> <sockets> <warmup-ms> <duration-ms> <server-pid>} (a WebSocket
 * echo, see {@link WsLoad}), runs it, answers {@code load <json>} with its {@link LoadResult},
 * and exits at the end of its input. Every job is bounded in time, so the JVM never outlives the
 * scenario that feeds it; the lab also ends it by PID.
 */
public final class LoadMain {

    /** The tag of a job's answer. */
    static final String RESULT = "load";

    private LoadMain() {}

    public static void main(String[] args) throws Exception {
        for (String line : ChildJvm.commands()) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.strip().split(" ");
            if (f[0].equals("ws") && f.length == 7) {
                System.out.println("load: " + line);
                WsLoad.Plan ws = new WsLoad.Plan(
                        Integer.parseInt(f[1]),
                        f[2],
                        Integer.parseInt(f[3]),
                        Long.parseLong(f[4]),
                        Long.parseLong(f[5]),
                        Long.parseLong(f[6]));
                ChildJvm.tell(RESULT, Json.line(new WsLoad(ws).run()));
                continue;
            }
            if (f.length != 7) {
                throw new IllegalArgumentException("a job is <port> <path> <connections> <warmup-ms>"
                        + " <duration-ms> <server-pid> <threads>, or ws <port> <path> <sockets> <warmup-ms>"
                        + " <duration-ms> <server-pid>; got " + line);
            }
            LoadGenerator.Plan plan = new LoadGenerator.Plan(
                    Integer.parseInt(f[0]),
                    f[1],
                    Integer.parseInt(f[2]),
                    Long.parseLong(f[3]),
                    Long.parseLong(f[4]),
                    Long.parseLong(f[5]),
                    Integer.parseInt(f[6]));
            System.out.println("load: " + line);
            ChildJvm.tell(RESULT, Json.line(new LoadGenerator(plan).run()));
        }
    }
}
