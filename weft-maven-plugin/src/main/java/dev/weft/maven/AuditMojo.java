package dev.weft.maven;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.apache.maven.project.MavenProject;

/**
 * Goal {@code weft:audit}, bound to {@code verify}: the weft audit (weft-audit's {@code Auditor})
 * of the project's classes, at the JDK the project compiles for, in the build.
 *
 * <pre>{@code
 * <plugin>
 *   <groupId>dev.weft</groupId>
 *   <artifactId>weft-maven-plugin</artifactId>
 *   <version>0.1.0</version>
 *   <executions><execution><goals><goal>audit</goal></goals></execution></executions>
 *   <configuration>
 *     <failOn>error</failOn>                  <!-- error (default), warning, info or none -->
 *     <includeDependencies>false</includeDependencies>
 *     <excludes><exclude>com.acme.Legacy.*=rewritten in 2.0</exclude></excludes>
 *   </configuration>
 * </plugin>
 * }</pre>
 *
 * <p>The report is printed as text and written as SARIF 2.1.0 to {@code target/weft-audit.sarif}
 * (for code-scanning tools). The runtime dependencies are read to follow calls into them; with
 * {@code includeDependencies} they are audited (reported) too. A project without classes (a POM,
 * or nothing compiled) is skipped with one line.
 */
@Mojo(
        name = "audit",
        defaultPhase = LifecyclePhase.VERIFY,
        requiresDependencyResolution = ResolutionScope.RUNTIME,
        threadSafe = true)
public final class AuditMojo extends AbstractMojo {

    /** The project being built. */
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    private MavenProject project;

    /**
     * The JDK the code will run on (21 or newer). Default: the project's
     * {@code maven.compiler.release}, else the JDK running Maven.
     */
    @Parameter(property = "weft.audit.targetJdk")
    private Integer targetJdk;

    /** The project's {@code maven.compiler.release}, as the compiler sees it (a -D on the command line wins). */
    @Parameter(defaultValue = "${maven.compiler.release}", readonly = true)
    private String release;

    /** Also audit (report) the runtime dependencies, not only follow calls into them. */
    @Parameter(property = "weft.audit.includeDependencies", defaultValue = "false")
    private boolean includeDependencies;

    /** Fail the build when a finding is this severe or more: {@code error}, {@code warning}, {@code info} or {@code none}. */
    @Parameter(property = "weft.audit.failOn", defaultValue = "error")
    private String failOn;

    /** Findings accepted earlier: a baseline file that {@code weft audit --write-baseline} wrote. */
    @Parameter(property = "weft.audit.baseline")
    private File baseline;

    /**
     * Findings to suppress, {@code PATTERN[=REASON]} each: {@code class.member} with {@code *}
     * for any run of characters; a class name alone covers its members.
     */
    @Parameter
    private List<String> excludes = new ArrayList<>();

    /** Where the SARIF report goes. */
    @Parameter(property = "weft.audit.sarif", defaultValue = "${project.build.directory}/weft-audit.sarif")
    private File sarif;

    /** Skip the audit. */
    @Parameter(property = "weft.audit.skip", defaultValue = "false")
    private boolean skip;

    /** Creates the goal; Maven sets its parameters. */
    public AuditMojo() {}

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("weft audit: skipped (weft.audit.skip)");
            return;
        }
        Path classes = Path.of(project.getBuild().getOutputDirectory());
        if (!Files.isDirectory(classes) || isEmpty(classes)) {
            getLog().info("weft audit: no classes in " + classes + " (nothing compiled): skipped");
            return;
        }
        List<String> dependencies = new ArrayList<>();
        for (Artifact a : project.getArtifacts()) {
            if (a.getFile() != null && a.getFile().getName().endsWith(".jar")) {
                dependencies.add(a.getFile().getPath());
            }
        }
        AuditRun run = new AuditRun(
                List.of(classes.toString()),
                dependencies,
                includeDependencies,
                AuditRun.targetJdk(targetJdk, release),
                failOn,
                baseline == null ? null : baseline.toPath(),
                excludes,
                sarif.toPath());
        AuditRun.Outcome outcome;
        try {
            outcome = run.run(line -> getLog().info(line));
        } catch (IllegalArgumentException e) {
            throw new MojoExecutionException("weft audit: " + e.getMessage());
        } catch (IOException e) {
            throw new MojoExecutionException("weft audit: " + e.getMessage(), e);
        }
        if (outcome.failed()) {
            throw new MojoFailureException(outcome.summary());
        }
    }

    private static boolean isEmpty(Path folder) throws MojoExecutionException {
        try (var files = Files.walk(folder)) {
            return files.noneMatch(Files::isRegularFile);
        } catch (IOException e) {
            throw new MojoExecutionException("weft audit: cannot read " + folder + ": " + e.getMessage(), e);
        }
    }
}
