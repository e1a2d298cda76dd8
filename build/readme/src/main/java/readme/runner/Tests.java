package readme.runner;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs the JUnit classes a README Java block declares: the runner evaluates
 * {@code readme.runner.Tests.run(X.class)} in the block's JShell after the block.
 */
public final class Tests {

    private Tests() {
    }

    /**
     * Runs every test of {@code testClass} on the JUnit Platform and returns how many passed.
     *
     * @throws AssertionError when a test failed (with each failure and its stack), or when the
     *     class has no test the platform could find
     */
    public static long run(Class<?> testClass) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(testClass))
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        if (summary.getTotalFailureCount() > 0 || summary.getTestsFoundCount() == 0) {
            StringWriter text = new StringWriter();
            summary.printFailuresTo(new PrintWriter(text), 12);
            throw new AssertionError(testClass.getSimpleName() + ": " + summary.getTestsFoundCount()
                    + " tests found, " + summary.getTestsSucceededCount() + " passed, "
                    + summary.getTotalFailureCount() + " failed\n" + text);
        }
        return summary.getTestsSucceededCount();
    }
}
