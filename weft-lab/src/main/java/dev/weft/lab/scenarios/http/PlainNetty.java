package dev.weft.lab.scenarios.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Date;
import java.util.concurrent.TimeUnit;

/**
 * A candidate core of issue 25 as a lab reference, {@code netty-virtual}: Netty 4.2's HTTP/1.1
 * codec on an NIO event loop for the I/O, and the article's handler on a new virtual thread per
 * request (http-kit's shape: the loop parses and writes, the handler may block). The loop group has
 * as many threads as Jetty's default selectors (half the cores, at least one) and also accepts. It
 * listens on 127.0.0.1 with the lab's listen backlog and answers as {@link PlainJetty.Hello} does:
 * {@code 200 text/html <b>hello!</b>} on {@code /nosleep}, with Jetty's header lines in Jetty's order,
 * the same after 50 ms of sleep on {@code /hello}, an empty 404 elsewhere.
 *
 * <p>Responses leave in request order: a connection's requests run one at a time, the next one
 * (pipelined) once the previous response is written; a connection that pipelines more than
 * {@value #MAX_PIPELINED} requests ahead is closed.
 */
final class PlainNetty implements AutoCloseable {

    static final int MAX_PIPELINED = 64;

    // Jetty's spelling of the names (Netty's own constants are lower case): the same bytes on the wire.
    private static final AsciiString DATE = AsciiString.cached("Date");
    private static final AsciiString CONTENT_TYPE = AsciiString.cached("Content-Type");
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("Content-Length");
    private static final AsciiString TEXT_HTML = AsciiString.cached("text/html");

    private final EventLoopGroup group;
    private final Channel channel;

    private PlainNetty(EventLoopGroup group, Channel channel) {
        this.group = group;
        this.channel = channel;
    }

    /** Starts the server on a free port of 127.0.0.1. */
    static PlainNetty start() throws InterruptedException {
        int loops = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(loops, NioIoHandler.newFactory());
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, PlainJetty.BACKLOG)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new Connection());
                        }
                    })
                    .bind("127.0.0.1", 0)
                    .sync()
                    .channel();
            return new PlainNetty(group, channel);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** The port it listens on. */
    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** Closes the listener and every connection, and ends the event loop threads (waits up to 5 s). */
    @Override
    public void close() {
        channel.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /**
     * One connection's requests, on its event loop: each runs on a virtual thread of its own, one at
     * a time; the fields are only touched on the loop (the write's listener runs there too).
     */
    private static final class Connection extends ChannelInboundHandlerAdapter {
        private final ArrayDeque<HttpRequest> pending = new ArrayDeque<>();
        private boolean busy;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof HttpRequest request) {
                    if (!request.decoderResult().isSuccess()) {
                        ctx.writeAndFlush(response(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST, false))
                                .addListener(ChannelFutureListener.CLOSE);
                        return;
                    }
                    if (pending.size() >= MAX_PIPELINED) {
                        ctx.close();
                        return;
                    }
                    pending.add(request);
                    if (!busy) {
                        next(ctx);
                    }
                }
                // Request bodies (HttpContent) are not read by this handler: released below.
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void next(ChannelHandlerContext ctx) {
            HttpRequest request = pending.poll();
            if (request == null) {
                return;
            }
            busy = true;
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            HttpVersion version = request.protocolVersion();
            String uri = request.uri();
            Thread.ofVirtual().start(() -> {
                FullHttpResponse response;
                try {
                    response = handle(version, uri, keepAlive);
                } catch (InterruptedException e) {
                    ctx.close(); // the JVM is ending: nobody waits for this answer
                    return;
                }
                ctx.writeAndFlush(response).addListener(f -> {
                    busy = false;
                    if (!f.isSuccess() || !keepAlive) {
                        ctx.close();
                    } else {
                        next(ctx);
                    }
                });
            });
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!(cause instanceof IOException)) { // a reset connection is the client's choice, not an error
                System.err.println("netty-virtual: closing a connection after " + cause);
            }
            ctx.close();
        }
    }

    /** The article's handler, answering in the request's HTTP version. */
    static FullHttpResponse handle(HttpVersion version, String uri, boolean keepAlive) throws InterruptedException {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        if ("/hello".equals(path)) {
            Thread.sleep(HttpScenario.SLEEP_MS);
        } else if (!"/nosleep".equals(path)) {
            return response(version, HttpResponseStatus.NOT_FOUND, keepAlive);
        }
        return response(version, HttpResponseStatus.OK, keepAlive);
    }

    private static FullHttpResponse response(HttpVersion version, HttpResponseStatus status, boolean keepAlive) {
        boolean ok = status == HttpResponseStatus.OK;
        FullHttpResponse r = new DefaultFullHttpResponse(
                version, status, ok ? Unpooled.wrappedBuffer(PlainJetty.BODY) : Unpooled.EMPTY_BUFFER);
        r.headers().set(DATE, Dates.now());
        if (ok) {
            r.headers().set(CONTENT_TYPE, TEXT_HTML);
        }
        r.headers().setInt(CONTENT_LENGTH, ok ? PlainJetty.BODY.length : 0);
        HttpUtil.setKeepAlive(r, keepAlive); // "close", or HTTP/1.0's "keep-alive"; nothing for HTTP/1.1's default
        return r;
    }

    /** The Date header's value, formatted once a second as Jetty does (formatting per request would cost the reference). */
    private static final class Dates {
        private record Formatted(long second, String value) {}

        private static volatile Formatted last = new Formatted(-1, "");

        static String now() {
            long ms = System.currentTimeMillis();
            Formatted f = last;
            if (f.second() != ms / 1000) {
                f = new Formatted(ms / 1000, DateFormatter.format(new Date(ms)));
                last = f;
            }
            return f.value();
        }
    }
}
