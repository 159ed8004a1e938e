// Ports on 127.0.0.1 for tests that need a connection to be refused.
import { createServer } from "node:net";

/** A 127.0.0.1 port nobody listens on: it was free a moment ago, and is closed again. */
export async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
