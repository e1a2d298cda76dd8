package com.example.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The service over real HTTP on 127.0.0.1. */
class ServiceHttpTest {

    private static HttpResponse<String> get(HttpServer server, String path, String requestId) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpRequest request = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path))
                    .header("X-Request-Id", requestId)
                    .build();
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void servesAnOrderPage() throws Exception {
        HttpServer server = Main.start(0, new OrderHandler(String::toUpperCase, customer -> 3, 4));
        try {
            HttpResponse<String> response = get(server, "/orders/ann", "r-7");
            assertEquals(200, response.statusCode());
            assertEquals("r-7: ANN has 3 items in stock", response.body());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aFailingDownstreamIsA500() throws Exception {
        HttpServer server = Main.start(0, new OrderHandler(
                customer -> { throw new IllegalStateException("directory down"); }, customer -> 3, 4));
        try {
            HttpResponse<String> response = get(server, "/orders/ann", "r-8");
            assertEquals(500, response.statusCode());
            assertTrue(response.body().contains("directory down"), response.body());
        } finally {
            server.stop(0);
        }
    }
}
