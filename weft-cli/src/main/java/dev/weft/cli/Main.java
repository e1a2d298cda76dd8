package dev.weft.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code weft} command line, one runnable jar ({@code java -jar weft-cli-<version>.jar}):
 * {@code weft audit} (the static audit of weft-audit) and {@code weft pins} (pinning in a running
 * JVM). The {@code ./weft} launcher calls it for {@code ./weft audit} and {@code ./weft pins}. Bad
 * arguments print one line naming the problem and the usage, and exit with status 2.
 */
@Command(
        name = "weft",
        subcommands = {AuditCommand.class, PinsCommand.class},
        customSynopsis = "weft <audit|pins> [options]",
        description = "Finds what pins or hurts virtual threads: in bytecode (audit) or in a running JVM (pins).")
public final class Main {

    /** Exit status for bad arguments. */
    public static final int USAGE = 2;

    private Main() {}

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
     * (usage: ./weft ...)}, and returns {@link #USAGE}; no command at all prints the usage and
     * returns {@link #USAGE} too. {@code help}, {@code -h} and {@code --help} (optionally followed
     * by a command) print the usage on standard output and return 0.
     */
    private static int run(Object command, String[] args, PrintStream out, PrintStream err) {
        CommandLine cli = new CommandLine(command);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String started = startedAs();
        nameUsage(cli, started);
        cli.setParameterExceptionHandler((e, a) -> {
            CommandLine c = e.getCommandLine();
            String who = c == cli ? "weft" : "weft " + c.getCommandName();
            err.println(who + ": " + e.getMessage() + " (" + usage(c) + ")");
            return USAGE;
        });
        if (args.length == 0) {
            // No command: the usage, as for --help, but on standard error and as a failure (a script
            // that runs the jar with nothing to do has a bug).
            cli.usage(cli.getErr());
            return USAGE;
        }
        if (List.of("help", "-h", "--help").contains(args[0])) {
            CommandLine sub = args.length > 1 ? cli.getSubcommands().get(args[1]) : null;
            if (args.length > 1 && sub == null) {
                err.println("weft: no command '" + args[1] + "' (" + usage(cli) + ")");
                return USAGE;
            }
            (sub == null ? cli : sub).usage(cli.getOut());
            return 0;
        }
        return cli.execute(args);
    }

    /** The one-line synopsis of {@code command}, e.g. {@code usage: ./weft audit <jar|dir|classpath>... ...}. */
    static String usage(CommandLine command) {
        return "usage: " + command.getHelp().synopsis(0).replaceAll("\\s+", " ").strip();
    }

    /**
     * How this command line was started, for its usage lines: {@code ./weft} when the launcher
     * says so (system property {@code weft.launcher}), else {@code java -jar <this jar's file
     * name>}, else (classes on a classpath, as in tests) {@code java -jar weft-cli-<version>.jar}.
     */
    static String startedAs() {
        String launcher = System.getProperty("weft.launcher");
        if (launcher != null && !launcher.isBlank()) {
            return launcher.strip();
        }
        try {
            var source = Main.class.getProtectionDomain().getCodeSource();
            if (source != null) {
                Path location = Path.of(source.getLocation().toURI());
                if (location.getFileName() != null
                        && location.getFileName().toString().endsWith(".jar")) {
                    return "java -jar " + location.getFileName();
                }
            }
        } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
            // no usable location: the generic name below
        }
        String version = Main.class.getPackage().getImplementationVersion();
        return "java -jar weft-cli-" + (version == null ? "<version>" : version) + ".jar";
    }

    /** Every synopsis starts with {@code weft}: make it the way this command line was started. */
    private static void nameUsage(CommandLine cli, String started) {
        for (CommandLine c : List.of(
                cli, cli.getSubcommands().get("audit"), cli.getSubcommands().get("pins"))) {
            var usage = c.getCommandSpec().usageMessage();
            String[] synopsis = usage.customSynopsis();
            for (int i = 0; i < synopsis.length; i++) {
                if (synopsis[i].startsWith("weft")) {
                    synopsis[i] = started + synopsis[i].substring("weft".length());
                }
            }
            usage.customSynopsis(synopsis);
        }
    }
}
