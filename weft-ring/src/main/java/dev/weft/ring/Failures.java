package dev.weft.ring;

import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.EofException;

/**
 * What a failure on a request's way means: whose fault it is and how it is answered or logged.
 * Each looks down the cause chain, since Jetty and the JDK wrap what happened.
 */
final class Failures {

    private Failures() {}

    /**
     * The status that answers a failed read of the request body: the 4xx Jetty gave it (413 over
     * the size limit, 400 for a malformed body), 408 when the client stopped sending, else 400.
     */
    static int clientStatus(Throwable bodyFailure) {
        for (Throwable c = bodyFailure; c != null; c = c.getCause()) {
            if (c instanceof HttpException h && h.getCode() >= 400 && h.getCode() < 500) {
                return h.getCode();
            }
            if (c instanceof TimeoutException) {
                return HttpStatus.REQUEST_TIMEOUT_408;
            }
        }
        return HttpStatus.BAD_REQUEST_400;
    }

    /** Whether {@code t} comes from an interrupt (a timeout or a stop ending the handler). */
    static boolean interrupted(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof InterruptedException
                    || c instanceof InterruptedIOException
                    || c instanceof ClosedByInterruptException) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code t} says the client went away (the connection ended under a read or write). */
    static boolean clientGone(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof EofException || c instanceof ClosedChannelException) {
                return true;
            }
        }
        return false;
    }

    /** The class and message of {@code x}, for a one-line log of an expected failure. */
    static String describe(Throwable x) {
        String m = x.getMessage();
        return x.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
