/**
 * Threads the weft way: a {@link dev.weft.thread.ThreadPolicy} chosen per call or globally,
 * named virtual-thread factories and executors ({@link dev.weft.thread.WeftThreads}), and the
 * scheduler's figures as data ({@link dev.weft.thread.SchedulerSnapshot},
 * {@link dev.weft.thread.SchedulerSampler}), weft's one JVM-wide clock
 * ({@link dev.weft.thread.VirtualTimer}) and durations written for people
 * ({@link dev.weft.thread.Durations}).
 */
package dev.weft.thread;
