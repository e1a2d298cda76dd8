/**
 * A static bytecode audit for virtual threads: {@link dev.weft.audit.Auditor} reads jars, folders
 * and classpaths with ASM and reports, per {@link dev.weft.audit.Rule}, what pins or hurts virtual
 * threads on a target JDK, as text, JSON or SARIF 2.1.0 ({@link dev.weft.audit.AuditReport}).
 * The command line, {@code weft audit}, is in weft-cli; this library has no CLI dependency.
 */
package dev.weft.audit;
