package dev.weft.junit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * A fresh JVM's run of {@link FirstSocketIoFixture}: serves one page on 127.0.0.1 (platform
 * threads: the server's own I/O starts no virtual-thread poller), runs the fixture with the
 * Jupiter engine, prints each outcome and exits 0 when every test passed.
 */
final class FirstSocketIoMain {

    private FirstSocketIoMain() {}

    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            byte[] body = "hi".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
        boolean passed = true;
        try {
            System.setProperty(
                    "fixture.url", "http://127.0.0.1:" + server.getAddress().getPort() + "/");
            for (Event e : EngineTestKit.engine("junit-jupiter")
                    .selectors(selectClass(FirstSocketIoFixture.class))
                    .execute()
                    .testEvents()
                    .finished()
                    .list()) {
                TestExecutionResult r = e.getRequiredPayload(TestExecutionResult.class);
                System.out.println(e.getTestDescriptor().getDisplayName() + ": " + r.getStatus());
                r.getThrowable().ifPresent(t -> System.out.println(t.getMessage()));
                passed &= r.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
            }
        } finally {
            server.stop(0);
        }
        System.exit(passed ? 0 : 1);
    }
}
