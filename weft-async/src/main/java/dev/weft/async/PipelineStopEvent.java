package dev.weft.async;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A weft.async pipeline stopped: its input ran out, a failure stopped it, or its scope ended it.
 * An instant event, committed by weft.async's pipeline and defined beside it (it moved here from
 * weft-core's {@code dev.weft.jfr}, keeping its name). Off unless a recording enables {@value #NAME}.
 */
@Name(PipelineStopEvent.NAME)
@Label("Pipeline Stop")
@Category("weft")
@Description("A weft.async pipeline stopped: how, and how many inputs it had taken and delivered")
@Enabled(false)
@StackTrace(false)
public final class PipelineStopEvent extends Event {

    /** The event's name in recordings. */
    public static final String NAME = "dev.weft.PipelineStop";

    @Label("Name")
    String name;

    @Label("Reason")
    @Description("completed, failed: <exception>, or cancelled")
    String reason;

    @Label("Taken")
    @Description("Inputs taken from the input channel")
    long taken;

    @Label("Delivered")
    @Description("Outputs put on the output channel")
    long delivered;

    PipelineStopEvent() {}

    /** True when a recording has {@value #NAME} enabled: compute the fields only then. */
    public static boolean isRecorded() {
        return new PipelineStopEvent().isEnabled();
    }

    /**
     * Commits a pipeline stop when a recording has {@value #NAME} enabled.
     *
     * @param name      the pipeline's name
     * @param reason    completed, failed: &lt;exception&gt;, or cancelled
     * @param taken     inputs taken
     * @param delivered outputs delivered
     */
    public static void emit(String name, String reason, long taken, long delivered) {
        PipelineStopEvent e = new PipelineStopEvent();
        if (e.shouldCommit()) {
            e.name = name;
            e.reason = reason;
            e.taken = taken;
            e.delivered = delivered;
            e.commit();
        }
    }
}
