package dev.weft.pool;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A resource held longer than the pool's {@code leakThreshold}: the pool, how long it had been
 * held when noticed, the borrowing thread's name and the stack of the {@link Pool#borrow()} call.
 * A leak is reported once per borrow; the resource stays with its borrower.
 *
 * @param pool     the pool's name
 * @param held     how long the resource had been held when the pool noticed
 * @param borrower the name of the thread that borrowed it (virtual threads are often unnamed: "")
 * @param stack    the borrower's stack at the borrow, innermost frame first
 */
public record LeakReport(String pool, Duration held, String borrower, List<StackTraceElement> stack) {

    /** Checks the fields and copies the stack. */
    public LeakReport {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(held, "held");
        Objects.requireNonNull(borrower, "borrower");
        stack = List.copyOf(stack);
    }

    /** One paragraph for a log: the headline, then the borrower's frames. */
    public String toText() {
        StringBuilder b = new StringBuilder("pool \"")
                .append(pool)
                .append("\": a resource held for ")
                .append(dev.weft.thread.internal.Durations.human(held))
                .append(" by thread \"")
                .append(borrower)
                .append("\" has not been returned (leakThreshold exceeded); borrowed at:");
        for (StackTraceElement f : stack) {
            b.append("\n    at ").append(f);
        }
        return b.toString();
    }
}
