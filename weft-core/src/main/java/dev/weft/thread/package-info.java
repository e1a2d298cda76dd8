/**
 * Threads the weft way: a {@link dev.weft.thread.ThreadPolicy} chosen per call or globally,
 * named virtual-thread factories and executors ({@link dev.weft.thread.WeftThreads}). weft's one
 * JVM-wide clock and its durations written for people are internal helpers, in
 * {@code dev.weft.thread.internal}. The scheduler's figures as data (SchedulerSnapshot,
 * SchedulerSampler) are in weft-diagnostics' {@code dev.weft.scheduler}.
 */
package dev.weft.thread;
