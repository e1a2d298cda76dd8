package dev.weft.slf4j;

import java.nio.file.Path;

/** The conveyance contract through Logback (logback-test.xml). */
class LogbackMdcTest extends MdcConveyanceContract {
    LogbackMdcTest() {
        super(Path.of("target", "logback-mdc.log"), "ch.qos.logback.classic.LoggerContext");
    }
}
