package dev.weft.scope;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where one scope sits among the others: which scope is current, which scopes nest in it, and
 * who closes a scope its opener left open.
 *
 * <p>Two links, as the JDK's thread flocks form a tree:
 *
 * <ul>
 *   <li><b>Owned by one thread</b> ({@code OWNED}, a ThreadLocal): the innermost open scope the
 *       thread owns, each scope keeping the one it replaced ({@code previouslyOwned}). Closing a
 *       scope restores that one and first closes what the same thread opened inside it and left
 *       open ({@link #closeNested}).
 *   <li><b>Started in a scope</b> ({@code CURRENT}, a hidden context key): the threads a scope
 *       starts carry a {@link Handle} to it. A scope opened in such a thread (not by the owner,
 *       whose nested scopes close with it) is adopted by the scope that started the thread
 *       ({@code openedIn}), which closes it when the thread's task ends and leaves it open
 *       ({@link #closeLeftOpen}).
 * </ul>
 *
 * <p>Invariants: a snapshot captured inside a scope may outlive it (a wrapped task, a cache), so
 * it holds a Handle, not the scope: {@link #leave} empties the handle, and the chain of parent
 * handles is all a snapshot keeps. {@code openedByForks} is guarded by {@code lock}, its size
 * published in a volatile so that a thread that opened nothing pays one read at its end. A scope
 * is in its opener's set from its constructor to its close.
 */
final class ScopeTree {

    private static final ThreadLocal<Scope> OWNED = new ThreadLocal<>();
    private static final ContextKey<Handle> CURRENT = ContextKey.hidden("weft.scope");

    private final Scope scope;
    private final Handle handle;
    private final Scope previouslyOwned;
    private final Scope openedIn; // the scope whose fork or spawned thread opened this one
    private final ReentrantLock lock = new ReentrantLock();
    private final Set<Scope> openedByForks = new HashSet<>(); // guarded by lock: scopes opened in this one's threads
    private volatile int openedByForksCount; // their number, read without the lock
    private Context.Snapshot forkBase; // owner only: forkContext's cache
    private Context.Snapshot forkContext;

    /** Places {@code scope}, being opened by the calling thread, in the tree; {@link #enter} makes it current. */
    ScopeTree(Scope scope) {
        this.scope = scope;
        Scope enclosing = current().orElse(null);
        this.handle = new Handle(scope, enclosing != null ? enclosing.tree.handle : null);
        this.previouslyOwned = OWNED.get();
        this.openedIn = enclosing != null && enclosing.owner() != scope.owner() ? enclosing : null;
        if (openedIn != null) {
            openedIn.tree.adopt(scope);
        }
    }

    /** Makes the scope the calling thread's innermost owned scope. */
    void enter() {
        OWNED.set(scope);
    }

    /** At close, in the owner: lets go of the scope for snapshots, its opener and the owner's thread. */
    void leave() {
        handle.scope = null;
        if (openedIn != null) {
            openedIn.tree.disown(scope);
        }
        if (OWNED.get() == scope) {
            if (previouslyOwned == null) {
                OWNED.remove();
            } else {
                OWNED.set(previouslyOwned);
            }
        }
    }

    /** {@code base} with this scope as the current one, for a thread the scope starts. */
    Context.Snapshot within(Context.Snapshot base) {
        return base.with(CURRENT, handle);
    }

    /** The keys bound now plus this scope as the current one, cached while the owner's keys stay the same. Owner only. */
    Context.Snapshot forkContext() {
        Context.Snapshot base = Context.capture();
        if (base != forkBase) {
            forkContext = within(base);
            forkBase = base;
        }
        return forkContext;
    }

    /**
     * Runs {@code task} in a thread spawned in the scope, then closes the scopes it left open:
     * the report is thrown, or suppressed in what the task threw.
     */
    void runSpawned(Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            IllegalStateException leftOpen = closeLeftOpen("a thread spawned in it");
            if (leftOpen != null) {
                e.addSuppressed(leftOpen);
            }
            throw e;
        }
        IllegalStateException leftOpen = closeLeftOpen("a thread spawned in it");
        if (leftOpen != null) {
            throw leftOpen;
        }
    }

    /** See {@link Scope#current()}. */
    static Optional<Scope> current() {
        Scope owned = OWNED.get();
        for (Handle h = owned != null ? owned.tree.handle : CURRENT.get(); h != null; h = h.parent) {
            Scope s = h.scope;
            if (s != null && !s.isClosed()) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** See {@link Scope#currentOrEnded()}. */
    static Optional<Scope> currentOrEnded() {
        Scope owned = OWNED.get();
        if (owned != null) {
            return Optional.of(owned);
        }
        Handle h = CURRENT.get();
        if (h == null) {
            return Optional.empty();
        }
        Scope s = h.scope;
        if (s == null) {
            throw new CancellationException("this thread was started in a scope that has closed since;"
                    + " start new work from a thread of an open scope, or pass the scope to use explicitly");
        }
        return Optional.of(s);
    }

    private void adopt(Scope inner) {
        lock.lock();
        try {
            openedByForks.add(inner);
            openedByForksCount = openedByForks.size();
        } finally {
            lock.unlock();
        }
    }

    private void disown(Scope inner) {
        lock.lock();
        try {
            openedByForks.remove(inner);
            openedByForksCount = openedByForks.size();
        } finally {
            lock.unlock();
        }
    }

    /** Closes the scopes the owner opened inside this one and left open; returns the first complaint. */
    IllegalStateException closeNested() {
        if (!isNestedIn(OWNED.get())) {
            return null;
        }
        IllegalStateException first = null;
        for (Scope inner = OWNED.get(); inner != null && inner != scope; inner = OWNED.get()) {
            try {
                inner.close();
            } catch (IllegalStateException e) {
                first = first == null ? e : first;
            }
        }
        return first;
    }

    /** True when {@code inner} was opened by this thread while this scope was open (and is not this scope). */
    private boolean isNestedIn(Scope inner) {
        if (inner == null || inner == scope) {
            return false;
        }
        for (Scope s = inner.tree.previouslyOwned; s != null; s = s.tree.previouslyOwned) {
            if (s == scope) {
                return true;
            }
        }
        return false;
    }

    /**
     * Closes the scopes the calling thread (a fork of this scope, or a thread spawned in it, whose
     * task has ended) opened and left open, as the thread's end would otherwise leave their threads
     * running; returns the report of what it closed, or null. Costs one volatile read when the
     * thread opened none.
     *
     * @param who what the thread is, for the report ("a subtask", "a thread spawned in it")
     */
    IllegalStateException closeLeftOpen(String who) {
        if (openedByForksCount == 0) {
            return null;
        }
        Thread self = Thread.currentThread();
        List<Scope> left = new ArrayList<>();
        lock.lock();
        try {
            for (Scope inner : openedByForks) {
                if (inner.owner() == self) {
                    left.add(inner);
                }
            }
        } finally {
            lock.unlock();
        }
        if (left.isEmpty()) {
            return null;
        }
        List<String> names = new ArrayList<>();
        List<RuntimeException> complaints = new ArrayList<>();
        for (Scope inner : left) {
            names.add(inner.name());
            try {
                inner.close(); // this thread owns it: close cancels what still runs and waits for it
            } catch (RuntimeException e) {
                complaints.add(e);
            }
        }
        boolean many = names.size() > 1;
        IllegalStateException report = new IllegalStateException("scope" + (many ? "s " : " ")
                + String.join(", ", names) + " opened by " + who + " of scope " + scope.name() + " "
                + (many ? "were" : "was") + " left open when the thread's task ended; weft closed "
                + (many ? "them" : "it") + " then, cancelling what still ran. Close every scope in the"
                + " thread that opened it, before that thread's task ends (try-with-resources)");
        complaints.forEach(report::addSuppressed);
        return report;
    }

    /**
     * What a snapshot holds for "the current scope": the scope while it is open, emptied when it
     * closes, and the handle of the scope it was opened in.
     */
    private static final class Handle {
        volatile Scope scope;
        final Handle parent;

        Handle(Scope scope, Handle parent) {
            this.scope = scope;
            this.parent = parent;
        }

        @Override
        public String toString() {
            Scope s = scope;
            return s == null ? "closed scope" : s.toString();
        }
    }
}
