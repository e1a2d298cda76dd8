package dev.weft.slf4j;

import java.nio.file.Path;

/**
 * The conveyance contract through Log4j2's SLF4J binding (log4j2-test.xml), in a Surefire
 * execution of its own that selects that provider.
 */
class Log4j2MdcTest extends MdcConveyanceContract {
    Log4j2MdcTest() {
        super(Path.of("target", "log4j2-mdc.log"), "org.apache.logging.slf4j.Log4jLoggerFactory");
    }
}
