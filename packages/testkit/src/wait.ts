/**
 * Waiting for something a server does on its own (a reload timer, a NOTIFY): checks `condition`
 * every `everyMs` (10 ms), so the test ends as soon as it holds; fails after `timeoutMs`.
 */
export async function waitFor(condition: () => boolean, timeoutMs = 5000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
