/**
 * JFR events of any kind delivered to a callback while code runs
 * ({@link dev.weft.recording.EventRecording}): what the pin monitor does for pins, for any event a
 * measurement needs (virtual-thread starts, GC pauses, ...), without handling a
 * {@code RecordingStream} by hand.
 */
package dev.weft.recording;
