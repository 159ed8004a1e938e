/**
 * How the agent launchers (`npm run agent`, `npm run itk-agent`) stop: on
 * Ctrl-C or SIGTERM (what npm and the interop kit send) the agent closes its
 * servers once, then the process exits.
 */
export function closeOnSignals(agent: { close(): Promise<void> }): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void agent.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
