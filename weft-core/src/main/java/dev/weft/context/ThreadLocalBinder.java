package dev.weft.context;

/**
 * Bindings in a (non-inheritable) {@code ThreadLocal}, set for the extent of a body and restored in
 * {@code finally}: the semantics of a {@code ScopedValue} on JDKs where that is a preview API.
 */
final class ThreadLocalBinder extends Binder {

    private final ThreadLocal<Context.Snapshot> bindings = new ThreadLocal<>();

    @Override
    Context.Snapshot current() {
        Context.Snapshot s = bindings.get();
        return s == null ? Context.Snapshot.empty() : s;
    }

    @Override
    void run(Context.Snapshot s, Runnable body) {
        Context.Snapshot previous = bindings.get();
        if (previous == s || (previous == null && s.bindsNothing())) {
            body.run();
            return;
        }
        bindings.set(s);
        try {
            body.run();
        } finally {
            restore(previous);
        }
    }

    @Override
    <T, X extends Throwable> T call(Context.Snapshot s, Context.CallableOp<? extends T, X> body) throws X {
        Context.Snapshot previous = bindings.get();
        if (previous == s || (previous == null && s.bindsNothing())) {
            return body.call();
        }
        bindings.set(s);
        try {
            return body.call();
        } finally {
            restore(previous);
        }
    }

    private void restore(Context.Snapshot previous) {
        if (previous == null) {
            bindings.remove();
        } else {
            bindings.set(previous);
        }
    }

    @Override
    String name() {
        return "thread-local";
    }
}
