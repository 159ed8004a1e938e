/**
 * The two paged list operations as async iterators: over pages (each
 * response as the agent sent it) and over items. They follow
 * `nextPageToken` until it is empty, stop when the caller's signal fires
 * (checked before every page), and refuse a server that hands out a token
 * it has already given, or only empty pages with tokens for more, which
 * would otherwise loop for ever. A reader that returns while a page is on
 * its way ends its request at once.
 */
import { DONE } from "../base/iterables.js";
import type {
  ListTaskPushNotificationConfigsRequestSchema,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequestSchema,
  ListTasksResponse,
  Task,
  TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { AbortedError, InvalidAgentResponseError, InvalidParamsError } from "../errors/family.js";
import { shownValue } from "../call/option-checks.js";
import { followSignal } from "../base/abort.js";
import type { Binding } from "../base/bindings.js";
import type { RequestInput } from "../call/request.js";
import type { A2AClient, CallOptions } from "./client.js";

/** A `ListTasks` request as a plain object, every field optional, in either shape (`RequestInput`). @category Connect and call */
export type ListTasksInit = RequestInput<typeof ListTasksRequestSchema>;
/** A `ListTaskPushNotificationConfigs` request as a plain object, in either shape (`RequestInput`). @category Push */
export type ListPushConfigsInit = RequestInput<typeof ListTaskPushNotificationConfigsRequestSchema>;

/** Smallest page size A2A allows. @category Connect and call */
export const MIN_PAGE_SIZE = 1;
/** Largest page size A2A allows. @category Connect and call */
export const MAX_PAGE_SIZE = 100;

/**
 * Throws `InvalidParamsError` unless `pageSize` is unset or an integer from
 * 1 to 100. The iterators call it before their first request.
 * @category Connect and call
 */
export function checkPageSize(pageSize: number | undefined): void {
  if (pageSize === undefined) return;
  if (!Number.isInteger(pageSize) || pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE) {
    throw new InvalidParamsError(
      `pageSize must be an integer from ${MIN_PAGE_SIZE} to ${MAX_PAGE_SIZE} (or left out for the agent's default), got ${shownValue(pageSize)}`,
    );
  }
}

/**
 * Empty pages in a row, each with a token for the next, after which a
 * listing is stopped: an agent that hands out tokens for ever and no items
 * would otherwise hold `listAllTasks` in a loop that yields nothing.
 */
export const MAX_EMPTY_PAGES = 10;

interface Page {
  nextPageToken: string;
}

/** Tokens up to this many characters are remembered as they are; longer ones by their hashes. */
const KEPT_WHOLE = 256;

/**
 * What is remembered of a page token, to see it again. A token is the
 * agent's text, as long as a response may be (megabytes): kept whole, a
 * listing of many pages with long tokens held all of them. A long one is
 * kept as its length and two 32-bit hashes of different kinds, a few dozen
 * characters, so a listing costs about that per page; two distinct tokens
 * that agree in all three stop a listing at a chance of about 2^-64.
 */
function tokenKey(token: string): string {
  if (token.length <= KEPT_WHOLE) return `=${token}`;
  // FNV-1a, and a multiply-and-shift mix, over the UTF-16 code units.
  let fnv = 0x811c9dc5;
  let mix = 0x9747b28c;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    fnv = Math.imul(fnv ^ c, 0x01000193);
    mix = Math.imul(mix ^ c, 0x5bd1e995);
    mix ^= mix >>> 15;
  }
  return `#${token.length}:${fnv >>> 0}:${mix >>> 0}`;
}

async function* pages<R extends { pageSize?: number | undefined; pageToken?: string | undefined }, P extends Page>(
  request: R,
  options: CallOptions,
  binding: () => Binding,
  fetchPage: (request: R, options: CallOptions) => Promise<P>,
  itemsOf: (page: P) => readonly unknown[],
): AsyncGenerator<P, void, undefined> {
  checkPageSize(request.pageSize);
  const seen = new Set<string>();
  let token = request.pageToken ?? "";
  if (token) seen.add(tokenKey(token));
  let empty = 0;
  for (;;) {
    const signal = options.signal;
    if (signal?.aborted) throw new AbortedError("listing was aborted", { binding: binding(), cause: signal.reason });
    const page = await fetchPage({ ...request, pageToken: token }, options);
    yield page;
    token = page.nextPageToken;
    if (!token) return;
    // Not quoted: a token is the agent's text, built after the call's credentials were masked.
    const key = tokenKey(token);
    if (seen.has(key)) {
      throw new InvalidAgentResponseError("the agent returned a page token it had returned before; listing stopped", {
        binding: binding(),
      });
    }
    empty = itemsOf(page).length === 0 ? empty + 1 : 0;
    if (empty >= MAX_EMPTY_PAGES) {
      throw new InvalidAgentResponseError(
        `the agent returned ${empty} empty pages in a row, each with a token for another; listing stopped (MAX_EMPTY_PAGES)`,
        { binding: binding() },
      );
    }
    seen.add(key);
  }
}

/**
 * The listing `make` gives, run with a signal of its own that follows the
 * caller's: a generator's `return` takes effect only once the page it waits
 * for has come (a minute, for a page that never does), so this one aborts
 * the page's request first, and the read left pending ends as done.
 */
function stoppable<T>(
  options: CallOptions,
  make: (options: CallOptions) => AsyncGenerator<T, void, undefined>,
): AsyncGenerator<T, void, undefined> {
  // Made on the first read: a listing never read holds nothing on the caller's signal.
  let own: ReturnType<typeof followSignal> | undefined;
  let inner: AsyncGenerator<T, void, undefined> | undefined;
  let returned = false;
  const started = () => {
    if (inner === undefined) {
      own = followSignal(options.signal);
      inner = make({ ...options, signal: own.controller.signal });
    }
    return inner;
  };
  const ended = (r: IteratorResult<T, void>): IteratorResult<T, void> => {
    if (r.done) own?.unlink();
    return returned ? DONE : r;
  };
  const failed = (e: unknown): IteratorResult<T, void> => {
    own?.unlink();
    if (returned) return DONE;
    throw e;
  };
  const listing: AsyncGenerator<T, void, undefined> = {
    next: () => (returned ? Promise.resolve(DONE) : started().next().then(ended, failed)),
    async return() {
      if (!returned) {
        returned = true;
        own?.controller.abort(new AbortedError("the reader stopped reading the listing"));
        own?.unlink();
        await inner?.return().catch(() => {});
      }
      return DONE;
    },
    throw: (e: unknown) => started().throw(e).then(ended, failed),
    [Symbol.asyncIterator]() {
      return listing;
    },
  };
  return listing;
}

/**
 * `ListTasks` page by page, from `request.pageToken` (or the start) to the
 * last page. `request` is as for `client.listTasks` (filters, `pageSize`
 * 1..100, ...). Throws `InvalidParamsError` for a bad `pageSize` before any
 * request, `AbortedError` when `options.signal` fires, and
 * `InvalidAgentResponseError` when the agent repeats a page token.
 * @example
 * ```ts
 * import { connect, listTasksPages } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * for await (const page of listTasksPages(client, { contextId: "ctx-1", pageSize: 100 })) {
 *   console.log(page.tasks.length, "of", page.totalSize);
 * }
 * ```
 * @category Connect and call
 */
export function listTasksPages(
  client: A2AClient,
  request: ListTasksInit = {},
  options: CallOptions = {},
): AsyncGenerator<ListTasksResponse, void, undefined> {
  return stoppable(options, (o) => taskPages(client, request, o));
}

function taskPages(client: A2AClient, request: ListTasksInit, options: CallOptions): AsyncGenerator<ListTasksResponse, void, undefined> {
  return pages(
    request,
    options,
    () => client.binding,
    (r, o) => client.listTasks(r, o),
    (page) => page.tasks,
  );
}

/** Every task `ListTasks` returns for `request`, across pages, in the agent's order. @category Connect and call */
export function listAllTasks(
  client: A2AClient,
  request: ListTasksInit = {},
  options: CallOptions = {},
): AsyncGenerator<Task, void, undefined> {
  return stoppable(options, async function* (o) {
    for await (const page of taskPages(client, request, o)) yield* page.tasks;
  });
}

/** `ListTaskPushNotificationConfigs` page by page; errors as `listTasksPages`. @category Push */
export function listTaskPushNotificationConfigsPages(
  client: A2AClient,
  request: ListPushConfigsInit,
  options: CallOptions = {},
): AsyncGenerator<ListTaskPushNotificationConfigsResponse, void, undefined> {
  return stoppable(options, (o) => configPages(client, request, o));
}

function configPages(
  client: A2AClient,
  request: ListPushConfigsInit,
  options: CallOptions,
): AsyncGenerator<ListTaskPushNotificationConfigsResponse, void, undefined> {
  return pages(
    request,
    options,
    () => client.binding,
    (r, o) => client.listTaskPushNotificationConfigs(r, o),
    (page) => page.configs,
  );
}

/**
 * Every push notification config of a task, across pages.
 * @example
 * ```ts
 * import { connect, listAllTaskPushNotificationConfigs } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * for await (const config of listAllTaskPushNotificationConfigs(client, { taskId: "task-123" })) console.log(config.id, config.url);
 * ```
 * @category Push
 */
export function listAllTaskPushNotificationConfigs(
  client: A2AClient,
  request: ListPushConfigsInit,
  options: CallOptions = {},
): AsyncGenerator<TaskPushNotificationConfig, void, undefined> {
  return stoppable(options, async function* (o) {
    for await (const page of configPages(client, request, o)) yield* page.configs;
  });
}
