package dev.weft.lab.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The lab's command line behind {@code ./weft lab}. ({@code ./weft audit} and {@code ./weft pins}
 * are weft-cli's.) Bad arguments print one line naming the problem and the usage, and exit with
 * status 2.
 */
@Command(
        name = "weft",
        subcommands = {LabCommand.class},
        customSynopsis = "weft lab [options]",
        description = "Virtual threads made practical, fast and safe from Clojure, Java and Kotlin.")
public final class Main {

    /** Exit status for bad arguments. */
    public static final int USAGE = 2;

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command line and returns its exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setParameterExceptionHandler((e, a) -> {
            CommandLine c = e.getCommandLine();
            err.println(
                    c.getCommandName().equals("weft")
                            ? "weft: " + e.getMessage() + " (" + usage(c) + ")"
                            : "weft " + c.getCommandName() + ": " + e.getMessage() + " (" + usage(c) + ")");
            return USAGE;
        });
        if (args.length == 0) {
            err.println("weft: missing command (" + usage(cli) + ")");
            return USAGE;
        }
        return cli.execute(args);
    }

    /** The one-line synopsis of {@code command}, e.g. {@code usage: ./weft lab [--full] ...}. */
    static String usage(CommandLine command) {
        return "usage: ./"
                + command.getHelp().synopsis(0).replaceAll("\\s+", " ").strip();
    }
}
