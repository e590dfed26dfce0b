/**
 * Periodic re-reading of a file a plugin serves from (*hosts*' hosts file, *loadbalance*'s weight
 * file, *file*'s zones): what changed is each plugin's own rule (mtime and size, an MD5 of the
 * bytes, the SOA serial), but the clock is the same, so it lives here once.
 */

/**
 * Runs `task` every `periodMs` milliseconds, never two runs at once: a tick that finds the
 * previous run still going is skipped, so a slow read is not piled up (CoreDNS's reload loops
 * run one read at a time). The timer does not keep the process alive. `periodMs` of 0 or less
 * means never. `task` handles its own errors: a rejection is dropped. Returns the stop function.
 *
 * @example c.onShutdown(pollEvery(reloadMs, () => reader.read()));
 */
export function pollEvery(periodMs: number, task: () => Promise<unknown>): () => void {
  if (periodMs <= 0) return () => undefined;
  let busy = false;
  const done = (): void => {
    busy = false;
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    task().then(done, done);
  }, periodMs);
  timer.unref();
  return () => clearInterval(timer);
}
