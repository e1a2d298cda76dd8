package dev.weft.pin;

import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The marker weft commits to know how far JFR has delivered: once a {@link PinMonitor}'s stream
 * has dispatched a mark and the rest of its flush segment, or a {@link PinCapture}'s stopped
 * recording contains it, every event committed before the mark is there too.
 */
@Name(Mark.NAME)
@Label("weft pin monitor mark")
@Category({"weft"})
@Description("Committed by weft to know when JFR has delivered everything before it")
@StackTrace(false)
final class Mark extends Event {

    static final String NAME = "dev.weft.pin.Mark";

    private static final AtomicLong IDS = new AtomicLong();

    @Label("Mark")
    long id;

    /** A new mark number, unique in this JVM: register a waiter for it, then {@link #commit(long)}. */
    static long next() {
        return IDS.incrementAndGet();
    }

    /** Commits mark {@code id}. */
    static void commit(long id) {
        Mark m = new Mark();
        m.id = id;
        m.commit();
    }
}
