package com.example.service;

import com.sun.net.httpserver.HttpServer;
import dev.weft.thread.WeftThreads;
import java.io.IOException;
import java.net.InetSocketAddress;

/** Serves {@link OrderHandler} on 127.0.0.1, each request on a virtual thread. */
public final class Main {

    private Main() {
    }

    /** Starts the service on {@code port} (0: any free port) with stand-in downstreams. */
    public static HttpServer start(int port, OrderHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/orders/", handler);
        server.setExecutor(WeftThreads.executor("http"));      // threads weft-http-1, weft-http-2, ...
        server.start();
        return server;
    }

    public static void main(String[] args) throws IOException {
        OrderHandler handler = new OrderHandler(
                customer -> customer.toUpperCase(),
                customer -> { Thread.sleep(50); return 3; },   // a slow downstream
                4);
        HttpServer server = start(args.length > 0 ? Integer.parseInt(args[0]) : 8080, handler);
        System.out.println("serving on http://127.0.0.1:" + server.getAddress().getPort() + "/orders/ann");
    }
}
