package dev.weft.pin;

import dev.weft.pin.internal.PinAggregator;
import java.time.Duration;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import jdk.jfr.consumer.RecordingStream;

/**
 * The JFR side of a {@link PinMonitor}, kept apart so that {@code PinMonitor} loads (and says
 * clearly what is missing) on a runtime without the {@code jdk.jfr} module.
 */
final class JfrPinStream {

    private static final String SUBMIT_FAILED = PinAggregator.SUBMIT_FAILED_JFR_EVENT;

    private final RecordingStream stream;
    private final Thread thread;
    private volatile FlightRecorderListener listener;

    JfrPinStream(PinMonitor monitor, Duration threshold) {
        if (!FlightRecorder.isAvailable()) {
            throw new IllegalStateException("JFR is not available in this JVM (it was built or started without"
                    + " Flight Recorder); the pin monitor needs it: run on a standard JDK 21+ build");
        }
        stream = new RecordingStream();
        stream.enable(PinEvent.JFR_EVENT).withThreshold(threshold).withStackTrace();
        stream.enable(SUBMIT_FAILED).withStackTrace();
        stream.enable(Mark.class);
        stream.onEvent(PinEvent.JFR_EVENT, e -> monitor.pinned(PinEvent.of(e)));
        stream.onEvent(SUBMIT_FAILED, e -> monitor.submitFailed(PinEvent.string(e, "exceptionMessage")));
        stream.onEvent(Mark.NAME, e -> monitor.marked(e.getLong("id")));
        stream.onFlush(monitor::flushed);
        stream.onError(monitor::failed);
        // RecordingStream.startAsync() runs on a non-daemon thread, which would keep the JVM alive
        // after main ends; start() on a daemon thread of our own does not.
        thread = Thread.ofPlatform()
                .name("weft-pin-monitor-" + monitor.id())
                .daemon(true)
                .unstarted(() -> {
                    try {
                        stream.start();
                    } catch (Throwable t) {
                        monitor.failed(t);
                    }
                });
    }

    /**
     * Starts the stream on its thread and calls {@code running} once its recording runs: JFR tells
     * listeners on the thread that started the recording, which tells this stream's recording
     * apart from any other starting at the same time.
     */
    void start(Runnable running) {
        FlightRecorderListener listener = new FlightRecorderListener() {
            @Override
            public void recordingStateChanged(Recording recording) {
                if (Thread.currentThread() == thread && recording.getState() == RecordingState.RUNNING) {
                    running.run();
                }
            }
        };
        FlightRecorder.addListener(listener);
        try {
            thread.start();
        } catch (RuntimeException | Error e) {
            FlightRecorder.removeListener(listener);
            throw e;
        }
        this.listener = listener;
    }

    /** Stops listening for recording state changes once the stream runs. */
    void started() {
        FlightRecorderListener l = listener;
        if (l != null) {
            FlightRecorder.removeListener(l);
            listener = null;
        }
    }

    /** True on the thread that runs the stream's callbacks. */
    boolean isStreamThread() {
        return Thread.currentThread() == thread;
    }

    /** Ends the stream and waits for its thread. */
    void close() throws InterruptedException {
        started();
        stream.close();
        thread.join();
    }
}
