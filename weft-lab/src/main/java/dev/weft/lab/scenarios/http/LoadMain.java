package dev.weft.lab.scenarios.http;

import dev.weft.lab.ChildJvm;
import dev.weft.lab.report.Json;

/**
 * The built-in load generator's JVM, a {@link ChildJvm}. It reads one job per line from standard input,
 * {@code <port> <path> <connections> <warmup-ms> <duration-ms> <server-pid> <threads>}
 * (HTTP/1.1, see {@link LoadGenerator}), runs it, answers {@code load <json>} with its
 * {@link LoadResult}, and exits at the end of its input. Paired rounds ({@link PairedLoad}) keep their connections
 * between jobs: {@code pair-open <http|ws> <port-a> <pid-a> <port-b> <pid-b> <path> <connections>
 * <warmup-ms> [<stagger-ms>]} opens both sets (HTTP/1.1 keep-alive connections on 2 selector threads
 * each, or WebSockets) and warms each up alone (answer {@code pair {}}); an HTTP/1.1 pair's
 * connections send their first requests after each resume spread over {@code stagger-ms} (default
 * 0: all at once; {@link Stagger}, decision 0860); each
 * {@code pair-round <a|b> <settle-ms> <slice-ms> <parts>} measures one round in parts interleaved a b b a ..., the server named first first
 * (answer {@code pair {"a": .., "b": ..}}); {@code pair-close} closes them (answer {@code pair {}}).
 * Every job is bounded in time, so the JVM never outlives the
 * scenario that feeds it; the lab also ends it by PID.
 */
public final class LoadMain {

    /** The tag of a job's answer. */
    static final String RESULT = "load";

    private LoadMain() {}

    /** The tag of a paired-rounds command's answer. */
    static final String PAIR = "pair";

    public static void main(String[] args) throws Exception {
        PairedLoad pair = null;
        for (String line : ChildJvm.commands()) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.strip().split(" ");
            if (f[0].startsWith("pair-")) {
                pair = pairCommand(pair, f, line);
                continue;
            }
            if (f.length != 7) {
                throw new IllegalArgumentException("a job is <port> <path> <connections> <warmup-ms>"
                        + " <duration-ms> <server-pid> <threads>, or a pair-* command; got " + line);
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
        if (pair != null) {
            pair.close();
        }
    }

    /** Runs one {@code pair-*} command on {@code pair}; returns the pair open after it. */
    private static PairedLoad pairCommand(PairedLoad pair, String[] f, String line) throws Exception {
        System.out.println("load: " + line);
        switch (f[0]) {
            case "pair-open" -> {
                if (f.length < 9 || f.length > 10 || pair != null || !f[1].matches("http|ws")) {
                    throw new IllegalArgumentException("pair-open <http|ws> <port-a> <pid-a> <port-b> <pid-b> <path>"
                            + " <connections> <warmup-ms> [<stagger-ms>], once before pair-close; got " + line);
                }
                int connections = Integer.parseInt(f[7]);
                long warmup = Long.parseLong(f[8]);
                long stagger = f.length == 10 ? Long.parseLong(f[9]) : 0;
                PairedLoad.Alternating[] sides = new PairedLoad.Alternating[2];
                for (int i = 0; i < 2; i++) {
                    int port = Integer.parseInt(f[2 + 2 * i]);
                    long pid = Long.parseLong(f[3 + 2 * i]);
                    sides[i] = f[1].equals("ws")
                            ? WsLoad.openPaused(new WsLoad.Plan(port, f[6], connections, 0, 1, pid))
                            : LoadGenerator.openPaused(
                                    new LoadGenerator.Plan(port, f[6], connections, 0, 1, pid, 2), stagger);
                }
                pair = PairedLoad.open(sides[0], sides[1], warmup);
                ChildJvm.tell(PAIR, "{}");
                return pair;
            }
            case "pair-round" -> {
                if (f.length != 5 || pair == null || !f[1].matches("a|b")) {
                    throw new IllegalArgumentException(
                            "pair-round <a|b> <settle-ms> <slice-ms> <parts>, after pair-open; got " + line);
                }
                ChildJvm.tell(
                        PAIR,
                        Json.line(pair.round(
                                f[1].equals("a"), Long.parseLong(f[2]), Long.parseLong(f[3]), Integer.parseInt(f[4]))));
                return pair;
            }
            case "pair-close" -> {
                if (pair != null) {
                    pair.close();
                }
                ChildJvm.tell(PAIR, "{}");
                return null;
            }
            default ->
                throw new IllegalArgumentException(
                        "unknown command " + line + "; expected pair-open, pair-round or pair-close");
        }
    }
}
