package com.example.legacy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LineClientTest {

    @Test
    void asksAnEchoServer() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread echo = Thread.ofVirtual().start(() -> {
                try (Socket s = server.accept();
                     BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                     PrintWriter w = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
                    for (String line; (line = r.readLine()) != null; ) {
                        w.println("echo " + line);
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            try (LineClient client = new LineClient("127.0.0.1", server.getLocalPort())) {
                assertEquals("echo ping", client.ask("ping"));
                assertEquals("echo pong", client.ask("pong"));
            }
            echo.join(5_000);
        }
    }
}
