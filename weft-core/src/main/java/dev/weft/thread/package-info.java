/**
 * Threads the weft way: a {@link dev.weft.thread.ThreadPolicy} chosen per call or globally,
 * named virtual-thread factories and executors ({@link dev.weft.thread.WeftThreads}), weft's one
 * JVM-wide clock ({@link dev.weft.thread.VirtualTimer}) and durations written for people
 * ({@link dev.weft.thread.Durations}). The scheduler's figures as data (SchedulerSnapshot,
 * SchedulerSampler) are in weft-diagnostics' {@code dev.weft.scheduler}.
 */
package dev.weft.thread;
