package dev.a2aconnect.peer;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * The peer's process: Quarkus starts the SDK's routes (JSON-RPC and HTTP+JSON
 * on --port, given to Quarkus by ./run), then {@link #run} prints "ready" and
 * waits for stdin to close, so that a test process that dies takes its peer
 * with it. SIGTERM stops Quarkus as usual.
 */
@QuarkusMain
public class Main implements QuarkusApplication {
    public static void main(String... args) {
        Quarkus.run(Main.class, args);
    }

    @Override
    public int run(String... args) throws Exception {
        // Quarkus calls run() once every route listens.
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() != -1) {
            // Whatever the parent writes is ignored: only the end of stdin matters.
        }
        return 0;
    }
}
