package dev.weft.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Rule 4 of decision 0206 on a real JFR recording: a virtual thread whose instruction needs a class
 * another thread is loading waits for the class loader's monitor inside the JVM's class loading, a
 * section the JVM pinned for itself (JDK 24+: "Contended monitor enter", "Freeze or preempt failed
 * (2)"). A check lists it apart and does not blame the body.
 */
class ClassLoadingPinTest {

    /** Loaded late, by {@link SlowLoader}: its loading is what the body's thread waits for. */
    static final class LoadedLate {}

    /** Its {@code make} resolves {@link LoadedLate}, so the JVM loads it for that instruction. */
    public static final class NeedsLoadedLate {
        public static Object make() {
            return new LoadedLate();
        }
    }

    /**
     * Defines the two classes above itself (not parallel capable, so the JVM locks the loader while
     * it loads for an instruction) and takes its time over {@link LoadedLate}.
     */
    static final class SlowLoader extends ClassLoader {
        private static final Set<String> OWN = Set.of(LoadedLate.class.getName(), NeedsLoadedLate.class.getName());
        final CountDownLatch loading = new CountDownLatch(1);

        SlowLoader() {
            super(ClassLoadingPinTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!OWN.contains(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c != null) {
                    return c;
                }
                if (name.equals(LoadedLate.class.getName())) {
                    loading.countDown();
                    try {
                        Thread.sleep(300); // a platform thread: it blocks, it cannot pin
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new ClassNotFoundException(name, e);
                    }
                }
                String resource = "/" + name.replace('.', '/') + ".class";
                try (InputStream in = ClassLoadingPinTest.class.getResourceAsStream(resource)) {
                    byte[] b = in.readAllBytes();
                    return defineClass(name, b, 0, b.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }

    @Test
    @Timeout(60)
    void waitingForAClassAnotherThreadLoadsIsTheJvmsNotTheBodys() throws Throwable {
        assumeTrue(Runtime.version().feature() >= 24, "JDK 21-23 record no pin for a contended monitor");
        SlowLoader loader = new SlowLoader();
        var make = Class.forName(NeedsLoadedLate.class.getName(), true, loader).getMethod("make");
        PinReport r = PinCheck.capture(
                () -> {
                    Thread other = Thread.ofPlatform().start(() -> {
                        try {
                            Class.forName(LoadedLate.class.getName(), false, loader);
                        } catch (ClassNotFoundException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    loader.loading.await();
                    make.invoke(null); // the JVM loads LoadedLate for `new`: the loader is locked by `other`
                    other.join();
                },
                PinCheck.BodyThread.VIRTUAL);
        assertEquals(0, r.pins(), r.toText());
        UncountedPin uncounted = r.notCounted().stream()
                .filter(u -> PinAttribution.CONTENDED_ENTER.equals(u.pin().blockingOperation()))
                .findFirst()
                .orElseThrow(
                        () -> new AssertionError("the body's thread waited for the loader; JFR saw: " + r.toText()));
        assertEquals(PinAttribution.CRITICAL_SECTION, uncounted.pin().reason());
        assertEquals(
                NeedsLoadedLate.class.getName(),
                uncounted.pin().frames().getFirst().className());
        assertTrue(uncounted.why().contains("a section the JVM or the JDK pinned for itself"), uncounted.why());
    }
}
