package dev.weft.context;

import java.util.Arrays;

/**
 * The registered {@link ContextCarrier}s and what a snapshot carries of them: captured with the
 * snapshot, attached around each task that runs with it. With no carrier registered, a capture is
 * one volatile read and a snapshot carries nothing ({@code Snapshot.carried == null}), so running
 * it costs what it did before carriers existed.
 */
final class Carriers {

    private static final ContextCarrier<?>[] NONE = new ContextCarrier<?>[0];

    /** Copy-on-write: registration is rare, capture is on every conveyance. */
    private static volatile ContextCarrier<?>[] registered = NONE;

    private Carriers() {}

    /**
     * What one snapshot carries: the carriers registered when it was captured and the state each
     * captured ({@code null}: nothing from that carrier). Immutable.
     */
    static final class Carried {
        final ContextCarrier<?>[] carriers;
        final Object[] states;

        Carried(ContextCarrier<?>[] carriers, Object[] states) {
            this.carriers = carriers;
            this.states = states;
        }
    }

    static synchronized ContextCarrier.Registration register(ContextCarrier<?> carrier) {
        ContextCarrier<?>[] now = registered;
        for (ContextCarrier<?> c : now) {
            if (c == carrier) {
                throw new IllegalArgumentException("context carrier " + carrier + " is already registered;"
                        + " register it once (at start-up) and keep its Registration to unregister it");
            }
        }
        ContextCarrier<?>[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = carrier;
        registered = next;
        return new ContextCarrier.Registration() {
            private boolean closed;

            @Override
            public void close() {
                synchronized (Carriers.class) {
                    if (!closed) {
                        closed = true;
                        unregister(carrier);
                    }
                }
            }

            @Override
            public String toString() {
                return "Registration[" + carrier + (closed ? ", closed]" : "]");
            }
        };
    }

    private static void unregister(ContextCarrier<?> carrier) { // holds Carriers.class
        ContextCarrier<?>[] now = registered;
        ContextCarrier<?>[] next = new ContextCarrier<?>[now.length - 1];
        int n = 0;
        for (ContextCarrier<?> c : now) {
            if (c != carrier) {
                next[n++] = c;
            }
        }
        registered = n == 0 ? NONE : next;
    }

    /**
     * {@code keys} carrying the registered carriers' state captured now: {@code keys} itself when
     * nothing is registered; the snapshot that already carries exactly that state when there is
     * one ({@code keys}, or the one last derived from {@code keys}), so repeated captures with
     * nothing changed allocate nothing; otherwise a snapshot with the same keys and the new state.
     */
    static Context.Snapshot capture(Context.Snapshot keys) {
        ContextCarrier<?>[] cs = registered;
        if (cs.length == 0) {
            return keys.carried == null ? keys : keys.carrying(null);
        }
        Context.Snapshot base = keys.carried != null ? keys : keys.derived;
        Carried before = base == null ? null : base.carried;
        Object[] prior = before != null && before.carriers == cs ? before.states : null;
        Object[] states = null; // allocated at the first state that differs from prior (or from null)
        for (int i = 0; i < cs.length; i++) {
            Object s = cs[i].capture();
            if (states == null && s != (prior == null ? null : prior[i])) {
                states = new Object[cs.length];
                if (prior != null) {
                    System.arraycopy(prior, 0, states, 0, i);
                }
            }
            if (states != null) {
                states[i] = s;
            }
        }
        if (states == null) {
            // Exactly what base carries already, or nothing at all.
            return prior != null ? base : keys.carrying(null);
        }
        for (Object s : states) {
            if (s != null) {
                Context.Snapshot carrying = keys.carrying(new Carried(cs, states));
                if (keys.carried == null) {
                    keys.derived = carrying; // a benign race: any derived snapshot is a correct one
                }
                return carrying;
            }
        }
        return keys.carrying(null);
    }

    /** Runs {@code body} with {@code s}'s carried state attached and its keys in effect. */
    static void run(Context.Snapshot s, Runnable body) {
        Carried c = s.carried;
        if (c == null) {
            Binder.INSTANCE.run(s, body);
        } else {
            attachFrom(0, c, s, body, null);
        }
    }

    /** Calls {@code body} with {@code s}'s carried state attached and its keys in effect. */
    static <T, X extends Throwable> T call(Context.Snapshot s, Context.CallableOp<? extends T, X> body) throws X {
        Carried c = s.carried;
        if (c == null) {
            return Binder.INSTANCE.call(s, body);
        }
        return attachFrom(0, c, s, null, body);
    }

    /**
     * Attaches carriers {@code i..} in order, then runs {@code run} (when not null) or calls
     * {@code call} with the keys in effect, then restores the carriers in reverse order. One
     * frame per carrier and no lambda: this is on every conveyed task's path.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static <T, X extends Throwable> T attachFrom(
            int i, Carried c, Context.Snapshot s, Runnable run, Context.CallableOp<? extends T, X> call) throws X {
        Object[] states = c.states;
        while (i < states.length && states[i] == null) {
            i++;
        }
        if (i == states.length) {
            if (run != null) {
                Binder.INSTANCE.run(s, run);
                return null;
            }
            return Binder.INSTANCE.call(s, call);
        }
        ContextCarrier.Restore restore = ((ContextCarrier) c.carriers[i]).attach(states[i], s);
        Throwable failure = null;
        try {
            return attachFrom(i + 1, c, s, run, call);
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            restore(restore, failure);
        }
    }

    private static void restore(ContextCarrier.Restore restore, Throwable failure) {
        if (restore == null) {
            return;
        }
        try {
            restore.restore();
        } catch (RuntimeException | Error e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }
}
