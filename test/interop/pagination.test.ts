/**
 * The paged list operations as iterators, against each real peer (the
 * official @a2a-js/sdk server, current and 1.0.0-beta.0) on every binding,
 * and against a fake server that misbehaves with its page tokens. The beta
 * lists nothing without a status filter, so there the listings filter by
 * the state all the tasks end in.
 */
import * as v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Interceptor } from "@connectrpc/connect";
import type { LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  AbortedError,
  InvalidAgentResponseError,
  InvalidParamsError,
  listAllTaskPushNotificationConfigs,
  listAllTasks,
  listTaskPushNotificationConfigsPages,
  listTasksPages,
  TaskState,
  userMessage,
  type Task,
} from "../../src/index.js";
import { createJsonRpcTransport, createRestTransport } from "../../src/node.js";
import { MAX_EMPTY_PAGES } from "../../src/client/paginate.js";
import { BINDINGS, clientFor, collect } from "../support/bindings.js";
import { sendJson, startFakeServer, type FakeServer } from "../support/fake-server.js";
import { SDK_1_0_BETA, agentsOfPeers, peerCases } from "../support/peers.js";

const agentOf = agentsOfPeers();

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
  const beta = sdk === SDK_1_0_BETA;
  let agent: LocalAgent;
  let client: A2AClient;
  const requests: string[] = [];
  const contextId = `pages-${binding}-${Date.now()}`;
  const created: string[] = [];
  // Every task here ends COMPLETED: on the beta the filter that makes it list them.
  const filter = beta ? { contextId, status: TaskState.COMPLETED } : { contextId };

  beforeAll(async () => {
    agent = agentOf(sdk);
    const counter: Interceptor = (next) => (req) => {
      requests.push(req.method.name);
      return next(req);
    };
    client = clientFor(binding, agent, { interceptors: [counter] });
    for (let i = 0; i < 7; i++) {
      created.push(taskOf(await client.sendMessage({ message: userMessage("count 1", { contextId }) })).id);
    }
  });

  const unfilteredLists = beta
    ? "without a status filter, ListTasks lists nothing (the beta's difference)"
    : "without a status filter, ListTasks lists every task";
  it(unfilteredLists, async () => {
    const unfiltered = await collect(listAllTasks(client, { contextId, pageSize: 100 }));
    expect(unfiltered.map((t) => t.id).sort()).toEqual(beta ? [] : [...created].sort());
  });

  it("pages of 3 over 7 tasks: 3, 3, 1, and the items in the same order", async () => {
    requests.length = 0;
    const pages = await collect(listTasksPages(client, { ...filter, pageSize: 3 }));
    expect(pages.map((p) => p.tasks.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.nextPageToken === "")).toEqual([false, false, true]);
    expect(requests).toEqual(["ListTasks", "ListTasks", "ListTasks"]);
    const fromPages = pages.flatMap((p) => p.tasks.map((t) => t.id));
    expect([...fromPages].sort()).toEqual([...created].sort());

    const items = await collect(listAllTasks(client, { ...filter, pageSize: 3 }));
    expect(items.map((t) => t.id)).toEqual(fromPages);
    expect(items.every((t) => t.contextId === contextId)).toBe(true);
  });

  it("starts from a given page token", async () => {
    const first = await client.listTasks({ ...filter, pageSize: 3 });
    const rest = await collect(listAllTasks(client, { ...filter, pageSize: 3, pageToken: first.nextPageToken }));
    expect(rest).toHaveLength(4);
  });

  it("stops when the signal fires between pages", async () => {
    requests.length = 0;
    const controller = new AbortController();
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const page of listTasksPages(client, { ...filter, pageSize: 3 }, { signal: controller.signal })) {
          seen.push(page.tasks.length);
          controller.abort();
        }
      })(),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(seen).toEqual([3]);
    expect(requests).toEqual(["ListTasks"]);
  });

  it("leaving the loop early sends no further request", async () => {
    requests.length = 0;
    for await (const task of listAllTasks(client, { ...filter, pageSize: 3 })) {
      expect(task.contextId).toBe(contextId);
      break;
    }
    expect(requests).toEqual(["ListTasks"]);
  });

  it.each([0, 101, -1, 2.5, Number.NaN])("pageSize %s is refused before any request", async (pageSize) => {
    requests.length = 0;
    await expect(collect(listTasksPages(client, { ...filter, pageSize }))).rejects.toBeInstanceOf(InvalidParamsError);
    await expect(collect(listAllTasks(client, { ...filter, pageSize }))).rejects.toBeInstanceOf(InvalidParamsError);
    await expect(collect(listAllTaskPushNotificationConfigs(client, { taskId: created[0]!, pageSize }))).rejects.toBeInstanceOf(
      InvalidParamsError,
    );
    expect(requests).toEqual([]);
  });

  it("pageSize 1 and 100 are accepted", async () => {
    expect(await collect(listAllTasks(client, { ...filter, pageSize: 1 }))).toHaveLength(7);
    expect(await collect(listAllTasks(client, { ...filter, pageSize: 100 }))).toHaveLength(7);
  });

  it("lists every push notification config of a task", async () => {
    const held = taskOf(await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await client.createTaskPushNotificationConfig({ taskId: held.id, url: `https://hooks.example.com/${i}` })).id);
      }
      const configs = await collect(listAllTaskPushNotificationConfigs(client, { taskId: held.id }));
      expect(configs.map((c) => c.id).sort()).toEqual([...ids].sort());
      const pages = await collect(listTaskPushNotificationConfigsPages(client, { taskId: held.id, pageSize: 100 }));
      expect(pages.at(-1)!.nextPageToken).toBe("");
      expect(pages.flatMap((p) => p.configs)).toHaveLength(3);
    } finally {
      await client.cancelTask({ id: held.id });
    }
  });
});

describe("a server that misbehaves with page tokens", () => {
  let fake: FakeServer;
  beforeAll(async () => {
    fake = await startFakeServer();
  });
  afterEach(() => {
    fake.requests.length = 0;
  });
  afterAll(() => fake.close());

  const task = (id: string) => ({ id, contextId: "c", status: { state: "TASK_STATE_COMPLETED" } });

  it("a repeated token stops the listing with InvalidAgentResponseError (JSON-RPC)", async () => {
    fake.handle((_req, res, body) => {
      const { id } = JSON.parse(body) as { id: number };
      sendJson(res, 200, { jsonrpc: "2.0", id, result: { tasks: [task(`t${fake.requests.length}`)], nextPageToken: "again" } });
    });
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${fake.url}/rpc` }));
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const t of listAllTasks(client, { pageSize: 1 })) seen.push(t.id);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InvalidAgentResponseError);
    expect((caught as InvalidAgentResponseError).binding).toBe("JSONRPC");
    expect(seen).toEqual(["t1", "t2"]);
    expect(fake.requests).toHaveLength(2);
  });

  it("a token that comes back after others is caught too (HTTP+JSON)", async () => {
    const tokens = ["a", "b", "a"];
    fake.handle((_req, res) => {
      const n = fake.requests.length;
      sendJson(res, 200, { tasks: [task(`t${n}`)], nextPageToken: tokens[n - 1] ?? "" });
    });
    const client = new A2AClient(createRestTransport({ baseUrl: fake.url }));
    await expect(collect(listTasksPages(client))).rejects.toBeInstanceOf(InvalidAgentResponseError);
    expect(fake.requests.map((r) => new URL(r.url, fake.url).searchParams.get("pageToken") ?? "")).toEqual(["", "a", "b"]);
  });

  it("empty pages that hand out new tokens for ever: the listing stops with InvalidAgentResponseError after MAX_EMPTY_PAGES", async () => {
    // Fresh tokens and no tasks; the last page after 100 requests only keeps an endless loop out of this test.
    fake.handle((_req, res) => {
      const n = fake.requests.length;
      sendJson(res, 200, { tasks: [], nextPageToken: n < 100 ? `p${n}` : "" });
    });
    const client = new A2AClient(createRestTransport({ baseUrl: fake.url }));
    const error = await collect(listAllTasks(client)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidAgentResponseError);
    expect((error as Error).message).toMatch(/10 empty pages in a row/);
    expect(fake.requests).toHaveLength(MAX_EMPTY_PAGES);
  });

  it("empty pages between pages of tasks are followed: only a run of them stops the listing", async () => {
    // Nine empty pages, a task, nine empty pages, a task, the end.
    fake.handle((_req, res) => {
      const n = fake.requests.length;
      const tasks = n % 10 === 0 ? [task(`t${n}`)] : [];
      sendJson(res, 200, { tasks, nextPageToken: n < 20 ? `p${n}` : "" });
    });
    const client = new A2AClient(createRestTransport({ baseUrl: fake.url }));
    expect((await collect(listAllTasks(client))).map((t) => t.id)).toEqual(["t10", "t20"]);
    expect(fake.requests).toHaveLength(20);
  });

  it("long tokens on every page are not all kept, and one that comes back is still caught", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const PAGES = 64;
    // A token of 256 KiB per page: 16 MiB over the listing, were every token kept whole.
    const tokenOf = (n: number) => `${n}:`.padEnd(256 * 1024, "t");
    let n = 0;
    // JSON-RPC: the token goes back in the request body (a URL that long is refused with 431).
    fake.handle((_req, res, body) => {
      n++;
      // The fake keeps no request: their bodies carry the tokens too.
      fake.requests.length = 0;
      const { id } = JSON.parse(body) as { id: number };
      sendJson(res, 200, { jsonrpc: "2.0", id, result: { tasks: [task(`t${n}`)], nextPageToken: tokenOf(n <= PAGES ? n : 3) } });
    });
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${fake.url}/rpc` }));
    let before = 0;
    let held = 0;
    let caught: unknown;
    try {
      for await (const t of listAllTasks(client)) {
        if (t.id === "t1") {
          gc();
          before = process.memoryUsage().heapUsed;
        }
        if (t.id === `t${PAGES}`) {
          gc();
          held = process.memoryUsage().heapUsed - before;
        }
      }
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InvalidAgentResponseError);
    expect(n).toBe(PAGES + 1);
    // Kept whole, the tokens held 16 MiB; a few dozen bytes each now.
    expect(held).toBeLessThan(4 * 1024 * 1024);
  });

  it("the starting token counts as seen", async () => {
    fake.handle((_req, res) => sendJson(res, 200, { tasks: [], nextPageToken: "start" }));
    const client = new A2AClient(createRestTransport({ baseUrl: fake.url }));
    await expect(collect(listTasksPages(client, { pageToken: "start" }))).rejects.toBeInstanceOf(InvalidAgentResponseError);
    expect(fake.requests).toHaveLength(1);
  });

  it("push notification configs follow their tokens to the end", async () => {
    const tokens = ["p2", "p3", ""];
    fake.handle((_req, res) => {
      const n = fake.requests.length;
      sendJson(res, 200, {
        configs: [{ id: `cfg${n}`, taskId: "t", url: "https://hooks.example.com/" }],
        nextPageToken: tokens[n - 1],
      });
    });
    const client = new A2AClient(createRestTransport({ baseUrl: fake.url }));
    const configs = await collect(listAllTaskPushNotificationConfigs(client, { taskId: "t", pageSize: 1 }));
    expect(configs.map((c) => c.id)).toEqual(["cfg1", "cfg2", "cfg3"]);
    expect(fake.requests.map((r) => new URL(r.url, fake.url).searchParams.get("pageToken") ?? "")).toEqual(["", "p2", "p3"]);
  });
});
