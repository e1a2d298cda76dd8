package dev.weft.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code weft} command line, one runnable jar ({@code java -jar weft-cli-<version>.jar}):
 * {@code weft audit} (the static audit of weft-audit) and {@code weft pins} (pinning in a running
 * JVM). The {@code ./weft} launcher calls it for {@code ./weft audit} and {@code ./weft pins}. Bad
 * arguments print one line naming the problem and the usage, and exit with status 2.
 */
@Command(name = "weft", subcommands = {AuditCommand.class, PinsCommand.class},
        customSynopsis = "weft <audit|pins> [options]",
        description = "Finds what pins or hurts virtual threads: in bytecode (audit) or in a running JVM (pins).")
public final class Main {

    /** Exit status for bad arguments. */
    public static final int USAGE = 2;

    private Main() {
    }

    /**
     * Runs the command line with {@code args} and exits the JVM with its status.
     *
     * @param args the command ({@code audit} or {@code pins}) and its arguments
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the command line and returns its exit status: 0 on success, 1 when the command failed
     * (a finding reached {@code --fail-on}, a JVM could not be recorded), 2 for bad arguments.
     *
     * @param args the command and its arguments
     * @param out  where reports and help go
     * @param err  where problems and progress go
     * @return the exit status
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(new Main(), args, out, err);
    }

    /**
     * Runs {@code command}: a parameter problem prints one line, {@code weft <command>: <problem>
     * (usage: ./weft ...)}, and returns {@link #USAGE}; no command at all is such a problem too.
     */
    private static int run(Object command, String[] args, PrintStream out, PrintStream err) {
        CommandLine cli = new CommandLine(command);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setParameterExceptionHandler((e, a) -> {
            CommandLine c = e.getCommandLine();
            String who = c == cli ? "weft" : "weft " + c.getCommandName();
            err.println(who + ": " + e.getMessage() + " (" + usage(c) + ")");
            return USAGE;
        });
        if (args.length == 0) {
            err.println("weft: missing command (" + usage(cli) + ")");
            return USAGE;
        }
        return cli.execute(args);
    }

    /** The one-line synopsis of {@code command}, e.g. {@code usage: ./weft audit <jar|dir|classpath>... ...}. */
    static String usage(CommandLine command) {
        return "usage: ./" + command.getHelp().synopsis(0).replaceAll("\\s+", " ").strip();
    }
}
