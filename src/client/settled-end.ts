/**
 * How a stream is let go once its task has settled (ended, or waits on the
 * caller) and it has nothing more to say. The agent ends it right after
 * (the specification has the server close the stream then), so its end is
 * read rather than cut: a stream read to its end is over for every party,
 * while one closed before it is a failed request to a browser (Chromium's
 * DevTools list it as net::ERR_ABORTED, whether the request is aborted or
 * its body cancelled) and a torn-down connection to Node's http client. An
 * agent that keeps the stream open (with keep-alive comments, or more
 * events) is not waited for past a short grace: the stream is closed then.
 */
import { startTimer } from "../base/timers.js";

/** How long the end of a settled stream is waited for, in milliseconds, before it is closed. */
export const SETTLED_END_GRACE_MS = 250;

/**
 * Reads the end of `stream`, whose task has settled, or closes it if that
 * does not come within SETTLED_END_GRACE_MS: by `close`, which must close
 * it while the read of its end waits (its `return` by default).
 */
export async function letGoSettled(
  stream: AsyncIterator<unknown>,
  close: () => Promise<unknown> = () => stream.return?.() ?? Promise.resolve(),
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = startTimer(() => resolve("late"), SETTLED_END_GRACE_MS);
  });
  const end = stream.next().then(
    (r) => (r.done ? "ended" : "more"),
    // Failing after the settling event, it has said all it had to.
    () => "failed",
  );
  const outcome = await Promise.race([end, late]);
  clearTimeout(timer);
  if (outcome !== "ended") await close();
}
