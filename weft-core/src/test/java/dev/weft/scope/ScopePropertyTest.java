package dev.weft.scope;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Random trees of scopes and tasks, with random policies, failures, delays, deadlines and
 * cancellations. For every tree: the root scope ends with no forked code still running and every
 * forked thread terminated, what it returns or throws is an outcome the tree allows, no cancelled
 * subtask hands out a result, and every task sees exactly the context bound at its fork.
 */
class ScopePropertyTest {

    static final ContextKey<String> PATH = ContextKey.of("path");
    static final ContextKey<String> ROOT = ContextKey.of("root");
    static final long DEADLINE_MS = 40;

    enum Kind {
        /** Returns its path after its delay. */
        SUCCEED,
        /** Throws {@link Boom} after its delay. */
        FAIL,
        /** Blocks until interrupted, then ends with InterruptedException. */
        HANG,
        /** Blocks until interrupted, then returns a value anyway: it must never be handed out. */
        LATE
    }

    sealed interface Node permits Leaf, Group {}

    record Leaf(Kind kind, int delayMs) implements Node {}

    record Group(Scope.Policy policy, boolean deadline, boolean cancelAfterForking, List<Node> children)
            implements Node {
        /** True when this group ends on its own or is ended by its deadline or its cancel. */
        boolean terminates() {
            return deadline
                    || cancelAfterForking
                    || children.stream()
                            .allMatch(c -> c instanceof Leaf l
                                    ? l.kind == Kind.SUCCEED || l.kind == Kind.FAIL
                                    : ((Group) c).terminates());
        }
    }

    static final class Boom extends RuntimeException {
        Boom(String path) {
            super(path, null, false, false);
        }
    }

    /** What the tree's code saw and did. */
    static final class Recorder {
        final AtomicInteger entered = new AtomicInteger();
        final AtomicInteger exited = new AtomicInteger();
        final ConcurrentLinkedQueue<Thread> threads = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    }

    // ---- generation ----------------------------------------------------------------------

    @Provide
    Arbitrary<Group> trees() {
        return group(3).map(ScopePropertyTest::terminating);
    }

    private Arbitrary<Group> group(int depth) {
        Arbitrary<Node> child = depth == 0
                ? leaf().map(l -> (Node) l)
                : Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(4, leaf().map(l -> (Node) l)),
                        net.jqwik.api.Tuple.of(
                                1, Arbitraries.lazy(() -> group(depth - 1)).map(g -> (Node) g)));
        return Combinators.combine(
                        Arbitraries.of(Scope.Policy.class),
                        Arbitraries.of(true, false, false),
                        Arbitraries.of(true, false, false, false, false),
                        child.list().ofMinSize(0).ofMaxSize(4))
                .as(Group::new);
    }

    private Arbitrary<Leaf> leaf() {
        return Combinators.combine(
                        Arbitraries.of(Kind.class), Arbitraries.integers().between(0, 3))
                .as(Leaf::new);
    }

    /** A group that could block forever gets a deadline, so that every tree ends. */
    static Group terminating(Group g) {
        List<Node> children = g.children.stream()
                .map(c -> c instanceof Group sub ? (Node) terminating(sub) : c)
                .toList();
        Group fixed = new Group(g.policy, g.deadline, g.cancelAfterForking, children);
        return fixed.terminates() ? fixed : new Group(g.policy, true, g.cancelAfterForking, children);
    }

    // ---- the model: what a node may return or throw ----------------------------------------

    /** May the node complete normally, and which exceptions (by identity string) may it throw? */
    record Model(boolean canSucceed, Set<String> canThrow) {}

    static Model model(Node n, String path) {
        if (n instanceof Leaf l) {
            return switch (l.kind) {
                case SUCCEED -> new Model(true, Set.of());
                case FAIL -> new Model(false, Set.of("boom:" + path));
                case HANG, LATE -> new Model(false, Set.of()); // ends only when cancelled
            };
        }
        Group g = (Group) n;
        List<Model> kids = new ArrayList<>();
        for (int i = 0; i < g.children.size(); i++) {
            kids.add(model(g.children.get(i), path + "." + i));
        }
        Set<String> childFailures = new HashSet<>();
        kids.forEach(k -> childFailures.addAll(k.canThrow));
        Set<String> thrown = new HashSet<>();
        boolean canSucceed;
        switch (g.policy) {
            case ALL_SUCCEED -> {
                thrown.addAll(childFailures);
                canSucceed = g.cancelAfterForking || kids.stream().allMatch(Model::canSucceed);
            }
            case FIRST_SUCCESS -> {
                thrown.addAll(childFailures);
                canSucceed = g.cancelAfterForking || kids.stream().anyMatch(Model::canSucceed);
                if (kids.isEmpty() && !g.cancelAfterForking) {
                    thrown.add("none:" + path);
                }
            }
            default -> canSucceed = true;
        }
        if (g.deadline) {
            thrown.add("timeout:" + path);
        }
        return new Model(canSucceed, thrown);
    }

    static String identity(Throwable t) {
        if (t instanceof Boom b) {
            return "boom:" + b.getMessage();
        }
        if (t instanceof TimeoutException) {
            return "timeout:"
                    + t.getMessage().substring("scope ".length(), t.getMessage().indexOf(':'));
        }
        if (t instanceof java.util.NoSuchElementException) {
            return "none:"
                    + t.getMessage().substring("scope ".length(), t.getMessage().indexOf(':'));
        }
        return "unexpected:" + t;
    }

    // ---- running a tree ---------------------------------------------------------------------

    static Object runNode(Node n, String path, String expectedPath, Recorder rec) throws Exception {
        rec.entered.incrementAndGet();
        rec.threads.add(Thread.currentThread());
        try {
            if (!expectedPath.equals(PATH.get()) || !"root-value".equals(ROOT.get())) {
                rec.violations.add(
                        path + " saw path=" + PATH.get() + " root=" + ROOT.get() + ", expected " + expectedPath);
            }
            if (n instanceof Group g) {
                return runGroup(g, path, rec);
            }
            Leaf l = (Leaf) n;
            if (l.delayMs > 0) {
                Thread.sleep(l.delayMs);
            }
            return switch (l.kind) {
                case SUCCEED -> path;
                case FAIL -> throw new Boom(path);
                case HANG -> {
                    new CountDownLatch(1).await();
                    throw new AssertionError("a latch nobody counts down returned");
                }
                case LATE -> {
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        yield "late:" + path;
                    }
                    throw new AssertionError("a latch nobody counts down returned");
                }
            };
        } finally {
            rec.exited.incrementAndGet();
        }
    }

    static Object runGroup(Group g, String path, Recorder rec) throws Exception {
        return Context.where(PATH, path).call(() -> {
            Scope.Builder b = Scope.builder().name(path).policy(g.policy);
            if (g.deadline) {
                b.timeout(Duration.ofMillis(DEADLINE_MS));
            }
            List<Subtask<Object>> subs = new ArrayList<>();
            try (Scope scope = b.open()) {
                for (int i = 0; i < g.children.size(); i++) {
                    Node child = g.children.get(i);
                    String childPath = path + "." + i;
                    subs.add(scope.fork(() -> runNode(child, childPath, path, rec)));
                }
                if (g.cancelAfterForking) {
                    scope.cancel();
                }
                try {
                    scope.join();
                } finally {
                    checkNoLeak(g, subs, path, rec);
                }
                if (scope.isCancelled() && g.policy != Scope.Policy.FIRST_SUCCESS) {
                    return "cancelled:" + path;
                }
                return switch (g.policy) {
                    case ALL_SUCCEED -> subs.stream().map(Subtask::get).toList();
                    case FIRST_SUCCESS -> {
                        List<Subtask<Object>> won = subs.stream()
                                .filter(s -> s.state() == Subtask.State.SUCCESS)
                                .toList();
                        if (g.cancelAfterForking && won.isEmpty()) {
                            yield "cancelled:" + path;
                        }
                        if (won.size() != 1) {
                            rec.violations.add(path + ": first-success joined with " + won.size() + " winners");
                        }
                        yield won.getFirst().get();
                    }
                    case AWAIT_ALL -> {
                        List<Object> outcomes = new ArrayList<>();
                        for (int i = 0; i < subs.size(); i++) {
                            Subtask<Object> s = subs.get(i);
                            checkAwaited(g.children.get(i), s, path + "." + i, rec);
                            outcomes.add(s.state() == Subtask.State.SUCCESS ? s.get() : s.state());
                        }
                        yield outcomes;
                    }
                };
            }
        });
    }

    /** A subtask that could only end by being cancelled must never show a result. */
    static void checkNoLeak(Group g, List<Subtask<Object>> subs, String path, Recorder rec) {
        for (int i = 0; i < subs.size(); i++) {
            Subtask<Object> s = subs.get(i);
            if (s.state() == Subtask.State.RUNNING) {
                rec.violations.add(path + "." + i + " still RUNNING after join");
            }
            if (g.children.get(i) instanceof Leaf l
                    && (l.kind == Kind.HANG || l.kind == Kind.LATE)
                    && s.state() != Subtask.State.CANCELLED) {
                rec.violations.add(path + "." + i + " (" + l.kind + ") ended " + s.state() + ", not CANCELLED");
            }
        }
    }

    /** Under await-all with no deadline and no cancel, every child's own outcome is kept. */
    static void checkAwaited(Node child, Subtask<Object> s, String childPath, Recorder rec) {
        if (child instanceof Leaf l) {
            boolean ok = switch (l.kind) {
                case SUCCEED -> s.state() == Subtask.State.SUCCESS && childPath.equals(s.get());
                case FAIL ->
                    s.state() == Subtask.State.FAILED
                            && s.exception() instanceof Boom b
                            && childPath.equals(b.getMessage());
                case HANG, LATE -> s.state() == Subtask.State.CANCELLED;
            };
            if (!ok) {
                rec.violations.add(childPath + " (" + l.kind + ") kept " + s.state() + " under await-all");
            }
        }
    }

    @Property(tries = 150)
    void everyScopeEndsCleanlyWithAnAllowedOutcome(@ForAll("trees") Group tree) throws Exception {
        Recorder rec = new Recorder();
        Model model = model(tree, "r");
        Object result = null;
        Throwable thrown = null;
        try {
            result = Context.where(ROOT, "root-value").call(() -> runGroup(tree, "r", rec));
        } catch (Throwable t) {
            thrown = t;
        }
        // Nothing forked is still running the moment the root scope has returned.
        assertEquals(rec.entered.get(), rec.exited.get(), "forked code still running after the scope ended: " + tree);
        for (Thread t : rec.threads) {
            assertTrue(t.join(Duration.ofSeconds(30)), "thread " + t + " did not end");
            assertFalse(t.isAlive());
        }
        assertTrue(rec.violations.isEmpty(), rec.violations + " in " + tree);
        if (thrown == null) {
            assertTrue(model.canSucceed, "returned " + result + " but the tree cannot succeed: " + tree);
        } else {
            String id = identity(thrown);
            if (!model.canThrow.contains(id)) {
                fail("threw " + id + " (" + thrown + "), allowed " + model.canThrow + " for " + tree, thrown);
            }
            for (Throwable s : thrown.getSuppressed()) {
                assertTrue(model.canThrow.contains(identity(s)), "suppressed " + s + " not allowed for " + tree);
            }
        }
        assertFalse(ROOT.isBound(), "bindings end with their body");
    }

    @Property(tries = 30)
    void aCapBoundsConcurrencyAndKeepsOrder(
            @ForAll @IntRange(min = 1, max = 4) int cap, @ForAll @IntRange(max = 24) int n) throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        List<Subtask<Integer>> subs = new ArrayList<>();
        try (Scope scope = Scope.builder().maxConcurrency(cap).open()) {
            for (int i = 0; i < n; i++) {
                int v = i;
                subs.add(scope.fork(() -> {
                    peak.accumulateAndGet(running.incrementAndGet(), Math::max);
                    Thread.yield();
                    running.decrementAndGet();
                    return v;
                }));
            }
            scope.join();
            assertEquals(0, scope.limiter().orElseThrow().inUse(), "every permit came back");
        }
        assertTrue(peak.get() <= cap, "peak " + peak.get() + " over cap " + cap);
        for (int i = 0; i < n; i++) {
            assertEquals(i, subs.get(i).get());
        }
    }
}
