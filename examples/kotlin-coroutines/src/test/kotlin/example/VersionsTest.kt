package example

import kotlinx.coroutines.Job
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

/**
 * weft-kotlin declares the lowest kotlinx-coroutines and kotlin-stdlib it supports (1.9.0 and
 * 2.0.0), so this project's own newer versions are the ones that run.
 */
class VersionsTest {

    @Test
    fun theProjectsOwnKotlinxCoroutinesRuns() {
        val jar = Job::class.java.protectionDomain.codeSource.location.path.substringAfterLast('/')
        assertEquals("kotlinx-coroutines-core-jvm-${System.getProperty("expected.kotlinx.coroutines")}.jar", jar)
    }

    @Test
    fun theProjectsOwnKotlinStdlibRuns() {
        assertEquals(System.getProperty("expected.kotlin.stdlib"), KotlinVersion.CURRENT.toString())
    }
}
