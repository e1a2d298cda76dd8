/**
 * The virtual-thread scheduler's figures as data: one reading ({@link dev.weft.scheduler.SchedulerSnapshot}:
 * parallelism, carriers, queued tasks, mounted virtual threads, platform threads), readings taken
 * on an interval ({@link dev.weft.scheduler.SchedulerSampler}) and their summary
 * ({@link dev.weft.scheduler.SchedulerSamples}). Moved from weft-core's {@code dev.weft.thread} with
 * the rest of weft's diagnostics (a package cannot be split between two modules).
 */
package dev.weft.scheduler;
