package dev.weft.jfr;

/**
 * The name of the pipeline-stop event, where it was before the event moved beside the pipeline
 * that commits it, in weft-async.
 *
 * @deprecated the event is {@code dev.weft.async.PipelineStopEvent} (weft-async) now, its
 *             recorded name ({@value #NAME}) unchanged; use that class's {@code NAME}. Removed in
 *             the next release
 */
@Deprecated(since = "0.1.0")
public final class PipelineStopEvent {

    /** The event's name in recordings: {@code dev.weft.async.PipelineStopEvent.NAME}. */
    public static final String NAME = "dev.weft.PipelineStop";

    private PipelineStopEvent() {}
}
