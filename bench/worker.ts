/**
 * One client under test, in a process of its own so that its CPU time is
 * its own. Answers the runner's `{ kind, ms | n }` requests with one
 * measurement each.
 */
import { createBenchClient, type BindingName, type ClientName } from "./clients.js";

const [name, binding, port, n] = process.argv.slice(2) as [ClientName, BindingName, string, string];
const client = await createBenchClient(name, binding, Number(port), Number(n));

export interface Measurement {
  /** Calls or events completed. */
  count: number;
  wallMs: number;
  cpuUs: number;
  heapUsed: number;
}

async function unary(concurrency: number, ms: number): Promise<Measurement> {
  let count = 0;
  const until = performance.now() + ms;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await client.send();
        count++;
      }
    }),
  );
  return finish(count, t0, cpu0);
}

async function stream(): Promise<Measurement> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const count = await client.stream();
  if (count !== Number(n)) throw new Error(`${name} saw ${count} of ${n} events`);
  return finish(count, t0, cpu0);
}

function finish(count: number, t0: number, cpu0: NodeJS.CpuUsage): Measurement {
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { count, wallMs, cpuUs: cpu.user + cpu.system, heapUsed: process.memoryUsage().heapUsed };
}

process.on("message", (m: { kind: "unary"; concurrency: number; ms: number } | { kind: "stream" }) => {
  const run = m.kind === "unary" ? unary(m.concurrency, m.ms) : stream();
  run.then(
    (r) => process.send!({ ok: r }),
    (e: unknown) => process.send!({ error: String((e as Error)?.stack ?? e) }),
  );
});
process.on("disconnect", () => process.exit(0));
process.send!({ ready: true });
