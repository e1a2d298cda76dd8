/**
 * weft's pin monitor and starvation detector as a Java agent for production:
 * {@code java -javaagent:weft-agent-<version>.jar[=options] -jar app.jar}. {@link dev.weft.agent.WeftAgent}
 * is the entry point the JVM calls; {@link dev.weft.agent.WeftAgentMXBean} is what it registers
 * as {@code dev.weft:type=Agent}.
 */
package dev.weft.agent;
