package com.example.legacy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A line protocol client in the old style: one request at a time, kept in order by the
 * object's monitor, held while it waits for the server's answer. On JDK 21-23 a virtual thread
 * waiting in {@link #ask} pins its carrier (and so does every thread queued on the monitor);
 * from JDK 24 it does not. The weft audit says so, at the release the project compiles for.
 */
public final class LineClient implements AutoCloseable {

    private final Socket socket;
    private final BufferedReader in;
    private final Writer out;

    public LineClient(String host, int port) throws IOException {
        socket = new Socket(host, port);
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
    }

    /** Sends one line and returns the server's answer. */
    public synchronized String ask(String line) throws IOException {
        out.write(line + "\n");
        out.flush();
        return in.readLine();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
