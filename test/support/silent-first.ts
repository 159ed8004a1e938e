/**
 * A `fetch` whose first request never answers (it ends only with its
 * signal, rejecting with the signal's reason) and whose later ones answer
 * with `body` as JSON: for shared loads that one caller starts and another
 * joins. `asked` settles when the first request is made.
 */
export function silentFirstFetch(body: () => unknown): { fetch: typeof fetch; asked: Promise<void>; requests: () => number } {
  let requests = 0;
  let firstAsked!: () => void;
  const asked = new Promise<void>((resolve) => (firstAsked = resolve));
  const f = (async (_url: RequestInfo | URL, init?: RequestInit) => {
    if (++requests === 1) {
      firstAsked();
      const signal = init!.signal!;
      return new Promise<Response>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    }
    return new Response(JSON.stringify(body()), { headers: { "Content-Type": "application/json" } });
  }) as typeof fetch;
  return { fetch: f, asked, requests: () => requests };
}
