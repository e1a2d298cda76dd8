package dev.weft.lab.run;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import dev.weft.lab.ChildJvm;
import dev.weft.lab.Mode;
import dev.weft.lab.Scenario;
import dev.weft.lab.ScenarioContext;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.report.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs one scenario in this JVM, a {@link ChildJvm} of the lab's runner, and sends its
 * {@link ScenarioResult} as the message {@value #RESULT} (JSON on one line). The lab starts one of
 * these per scenario: {@code ScenarioMain <name> <mode> <work-dir> [<registry folder>]}.
 * Progress goes to standard output, diagnostics to standard error; the exit status is 0 when the
 * scenario ran to the end.
 */
public final class ScenarioMain {

    /** The tag of the message that carries the scenario's result. */
    public static final String RESULT = "result";

    private ScenarioMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || args.length > 4) {
            System.err.println("usage: ScenarioMain <name> <smoke|quick|full> <work-dir> [<registry folder>]");
            System.exit(2);
        }
        Registry registry =
                args.length == 4 ? Registry.load(args[3], ScenarioMain.class.getClassLoader()) : Registry.load();
        Descriptor d = registry.select(java.util.List.of(args[0])).getFirst();
        Mode mode = Mode.parse(args[1]);
        Path workDir = Files.createDirectories(Path.of(args[2]));
        ScenarioContext ctx = new ScenarioContext(mode, System.out, workDir, d.budgetSeconds(mode));
        long start = System.nanoTime();
        int status = 0;
        ScenarioResult result;
        try {
            scenario(d).run(ctx);
            result = Results.of(d, ctx, "ok", null, seconds(start));
        } catch (Throwable t) {
            t.printStackTrace();
            result = Results.of(d, ctx, "failed", describe(t), seconds(start));
            status = 1;
        } finally {
            ctx.stopStartedJvms();
        }
        ChildJvm.tell(RESULT, Json.line(result));
        // Ends stray non-daemon threads a scenario may have left behind; the result is written.
        System.exit(status);
    }

    /** Instantiates the scenario the descriptor's {@code run} names. */
    static Scenario scenario(Descriptor d) throws ReflectiveOperationException {
        String run = d.run();
        if (run.startsWith("java:")) {
            Class<?> type = Class.forName(run.substring("java:".length()));
            return (Scenario) type.getDeclaredConstructor().newInstance();
        }
        if (run.startsWith("clojure:")) {
            String qualified = run.substring("clojure:".length());
            int slash = qualified.indexOf('/');
            if (slash < 0) {
                throw new IllegalArgumentException(d.name() + ": run=clojure: needs <ns>/<fn>; got " + qualified);
            }
            String ns = qualified.substring(0, slash);
            Clojure.var("clojure.core", "require").invoke(Clojure.read(ns));
            IFn fn = Clojure.var(ns, qualified.substring(slash + 1));
            return fn::invoke;
        }
        throw new IllegalArgumentException(d.name() + ": run must start with java: or clojure:; got " + run);
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    private static String describe(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        String[] lines = w.toString().split("\\R");
        return String.join("\n", java.util.Arrays.copyOf(lines, Math.min(lines.length, 12)));
    }
}
