package dev.weft.lab.run;

import dev.weft.lab.Scenario;
import dev.weft.lab.ScenarioContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Scenarios that misbehave on purpose, registered under META-INF/weft/test-scenarios/. */
public final class TestScenarios {

    private TestScenarios() {}

    /** Reports one variant and a note. */
    public static final class Ok implements Scenario {
        @Override
        public void run(ScenarioContext ctx) {
            ctx.progress("measuring");
            ctx.limitNote("a made-up limit of 10 things/s");
            ctx.note("a note");
            ctx.variant("only")
                    .unit("things/s")
                    .value(5)
                    .limit(10.0)
                    .published(20.0)
                    .extra("k", 1)
                    .add();
            ctx.goal("a made-up goal").measured(0.5).atMost(1.0).add();
        }
    }

    /** Reports a variant, then throws. */
    public static final class Throws implements Scenario {
        @Override
        public void run(ScenarioContext ctx) {
            ctx.variant("before-the-failure").unit("ms").value(1).add();
            throw new IllegalStateException("the scenario broke on purpose");
        }
    }

    /** Ends its JVM without writing a result. */
    public static final class Exits implements Scenario {
        @Override
        public void run(ScenarioContext ctx) {
            System.err.println("exiting with status 3 on purpose");
            System.exit(3);
        }
    }

    /** Starts a helper JVM that records its PID, then hangs until the runner ends it. */
    public static final class Hangs implements Scenario {
        @Override
        public void run(ScenarioContext ctx) throws Exception {
            startSleeper(ctx);
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** Starts a helper JVM that records its PID and returns without stopping it. */
    public static final class LeavesHelper implements Scenario {
        @Override
        public void run(ScenarioContext ctx) throws Exception {
            startSleeper(ctx);
            ctx.variant("left-a-helper").unit("ms").value(1).add();
        }
    }

    private static void startSleeper(ScenarioContext ctx) throws Exception {
        Path pidFile = ctx.workDir().resolve("helper.pid");
        ctx.startJvm("sleeper", List.of(), Sleeper.class.getName(), List.of(pidFile.toString()));
        while (!Files.exists(pidFile) || Files.readString(pidFile).isBlank()) {
            Thread.sleep(10);
        }
    }

    /** A helper JVM: writes its PID to the file named by its argument and sleeps. */
    public static final class Sleeper {
        public static void main(String[] args) throws Exception {
            Path tmp = Path.of(args[0] + ".tmp");
            Files.writeString(tmp, Long.toString(ProcessHandle.current().pid()));
            Files.move(tmp, Path.of(args[0]));
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
