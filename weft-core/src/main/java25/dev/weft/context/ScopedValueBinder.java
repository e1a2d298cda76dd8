package dev.weft.context;

/**
 * Bindings in one {@link ScopedValue} (final in JDK 25): every key's value is in the snapshot it
 * holds, so conveying any number of keys is one {@code ScopedValue.where(...).run(...)}.
 * Compiled with {@code --release 25} and loaded by name only on JDK 25 and newer.
 */
final class ScopedValueBinder extends Binder {

    private static final ScopedValue<Context.Snapshot> BINDINGS = ScopedValue.newInstance();

    static {
        // The JVM's first ScopedValue binding initializes jdk.internal.vm.ScopedValueContainer.
        // Forks that bind at once while another thread runs that initializer wait for it, and
        // waiting for a class initializer pins a virtual thread even on JDK 25 (seen by a
        // no-pins? check of a fresh JVM's first fan-out). This class is loaded by the thread that
        // first captures a context, before it forks: initialize the container there, once.
        ScopedValue<Boolean> warm = ScopedValue.newInstance();
        ScopedValue.where(warm, Boolean.TRUE).run(() -> {});
    }

    @Override
    Context.Snapshot current() {
        return BINDINGS.orElse(Context.Snapshot.empty());
    }

    @Override
    void run(Context.Snapshot s, Runnable body) {
        if (skip(s)) {
            body.run();
        } else {
            ScopedValue.where(BINDINGS, s).run(body);
        }
    }

    @Override
    <T, X extends Throwable> T call(Context.Snapshot s, Context.CallableOp<? extends T, X> body) throws X {
        if (skip(s)) {
            return body.call();
        }
        return ScopedValue.where(BINDINGS, s).call(body::call);
    }

    /** Nothing to bind: the body would see exactly these bindings anyway. */
    private static boolean skip(Context.Snapshot s) {
        return BINDINGS.isBound() ? BINDINGS.get() == s : s.bindsNothing();
    }

    @Override
    String name() {
        return "scoped-value";
    }
}
