package dev.weft.pin;

import dev.weft.pin.internal.PinAggregator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a pin belongs to the code under test or to the JDK's own machinery (decision 0206). A
 * check counts only the former; the others are listed apart in its report, with the reason this
 * class gives.
 *
 * <p>A pin is the JDK's own when
 * <ol>
 * <li>its thread runs JDK code only: the complete stack (not truncated) has no frame outside the
 *     JDK. That is a thread the JDK started for itself, such as JDK 25's {@code SubPoller}
 *     virtual threads, which pin while they wait for {@code sun.nio.ch.Poller}'s initialization
 *     the first time a virtual thread does socket I/O. A thread the body started runs the body's
 *     code, so it has a frame of its own;</li>
 * <li>or its thread waited for another thread's initialization of a JDK class (JDK 24+ names the
 *     class in the pinned reason): the one-time start-up of the JDK's machinery, which the body
 *     only triggered;</li>
 * <li>or it blocked inside the initializer of a JDK class, with no initializer of another class
 *     on the stack and no monitor named as the reason;</li>
 * <li>or it waited to enter a monitor inside a section the JVM or the JDK pinned for itself (JDK
 *     24+: blocking operation {@code Contended monitor enter}, reason {@code Freeze or preempt
 *     failed (2)}, the JVM's code for "critical section"), with no initializer of the
 *     application's on the stack. Code outside the JDK cannot open such a section: it is the JVM
 *     loading, linking or initializing a class for the instruction at the top of the stack
 *     (another thread of the body was loading the same class), code the JVM runs while it loads
 *     a class (a class loader's own {@code synchronized}), or the JDK's own bookkeeping, such as
 *     a virtual thread's interrupt lock. The application's own {@code synchronized} elsewhere
 *     unmounts on these JDKs and pins only with another reason.</li>
 * </ol>
 * Anything else counts, including a stack JFR cut short and blocking in the initializer of the
 * application's own class. A JDK class is one of {@code java.*}, {@code javax.*}, {@code jdk.*},
 * {@code sun.*}, {@code com.sun.*} that the platform class loader sees (so a {@code javax.servlet}
 * class on the class path is the application's), or a hidden class of such a class.
 */
final class PinAttribution {

    private static final Pattern WAITED_FOR_INIT = Pattern.compile("initialization of (\\S+) by another thread");
    /** JDK 24+'s blocking operation for a monitor a virtual thread waits to enter. */
    static final String CONTENDED_ENTER = "Contended monitor enter";
    /** JDK 24+'s reason when the thread is in a critical section (HotSpot's freeze_pinned_cs, 2). */
    static final String CRITICAL_SECTION = "Freeze or preempt failed (2)";

    private static final Map<String, Boolean> JDK = new ConcurrentHashMap<>();

    private PinAttribution() {}

    /** Why {@code pin} is the JDK's own and not the code's under test, or empty when it counts. */
    static Optional<String> jdkOwn(PinEvent pin) {
        List<PinFrame> frames = pin.frames();
        if (frames.isEmpty()) {
            return Optional.empty(); // nothing to tell by: count it
        }
        if (!pin.truncated() && frames.stream().allMatch(f -> jdkClass(f.className()))) {
            PinFrame runs = PinAggregator.siteFrames(frames, 1).getFirst();
            return Optional.of(
                    on(pin) + " is the JDK's own: every frame of its stack is the JDK's (it runs " + runs + ")");
        }
        boolean ownInitializer =
                frames.stream().anyMatch(f -> f.method().equals("<clinit>") && !jdkClass(f.className()));
        if (ownInitializer) {
            return Optional.empty();
        }
        if (pin.reason() != null) {
            Matcher m = WAITED_FOR_INIT.matcher(pin.reason());
            if (m.find() && jdkClass(m.group(1))) {
                return Optional.of(on(pin) + " waited for another thread's one-time initialization of the JDK class "
                        + m.group(1) + ", which the code under test only triggered");
            }
        }
        if (CONTENDED_ENTER.equals(pin.blockingOperation()) && CRITICAL_SECTION.equals(pin.reason())) {
            return Optional.of(on(pin) + " waited to enter a monitor inside a section the JVM or the JDK pinned for"
                    + " itself (class loading for the instruction at " + frames.getFirst()
                    + ", or the JDK's own bookkeeping), which the code under test only triggered");
        }
        boolean monitor = pin.reason() != null
                && pin.reason().toLowerCase(java.util.Locale.ROOT).contains("monitor");
        Optional<PinFrame> jdkInit =
                frames.stream().filter(f -> f.method().equals("<clinit>")).findFirst();
        if (jdkInit.isPresent() && !monitor) {
            return Optional.of(on(pin) + " blocked in the one-time initialization of the JDK class "
                    + jdkInit.get().className() + ", which the code under test only triggered");
        }
        return Optional.empty();
    }

    private static String on(PinEvent pin) {
        return pin.thread() == null ? "the pinned thread (unnamed in JFR)" : "thread " + pin.thread();
    }

    /** Whether {@code className} (binary name, as JFR gives it) is the JDK's. */
    static boolean jdkClass(String className) {
        if (!PinAggregator.jdkClass(className)) {
            return false;
        }
        return JDK.computeIfAbsent(className, PinAttribution::platformClass);
    }

    private static boolean platformClass(String className) {
        // A hidden class (a lambda, a LambdaForm) cannot be found by name: judge its host class.
        int hidden = className.indexOf("$$");
        String name = hidden > 0 ? className.substring(0, hidden) : className;
        try {
            Class<?> c = Class.forName(name, false, ClassLoader.getPlatformClassLoader());
            ClassLoader loader = c.getClassLoader();
            return loader == null || loader == ClassLoader.getPlatformClassLoader();
        } catch (ClassNotFoundException | LinkageError e) {
            // Only the boot loader may define java.*; jdk.* and sun.* are the JDK's by convention
            // (e.g. java.lang.invoke.LambdaForm$MH, generated and unnamed). javax.* and com.sun.*
            // the platform loader does not see belong to a library on the class path.
            return name.startsWith("java.") || name.startsWith("jdk.") || name.startsWith("sun.");
        }
    }
}
