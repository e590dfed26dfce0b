/**
 * Waiting for what a server does in the background (a health check, a watch event, a metric),
 * without fixed sleeps: poll a check until it holds, or read a metric's value.
 */
import type { EventEmitter } from 'node:events';
import type { TestServer } from './index.js';

/**
 * Resolves once `check` holds: it returns anything but `false` without throwing. Polls every
 * 5 ms; after `timeoutMs` rejects with the check's last error, or, when it last returned
 * `false`, `timed out after N ms waiting for WHAT` (`what`, or `condition not reached in time`).
 *
 * @example
 * await eventually(() => upstream.probes.length >= 2);
 * await eventually(() => api.openWatches()['/api/v1/services'] === 1, 5000, 'the services watch');
 * await eventually(async () => assert.equal(rcodeOf(await query(target, 'a.example', 'A')), 'NOERROR'));
 */
export async function eventually(check: () => boolean | void | Promise<boolean | void>, timeoutMs = 3000, what?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      if ((await check()) !== false) return;
      failure = new Error(what === undefined ? 'condition not reached in time' : `timed out after ${timeoutMs} ms waiting for ${what}`);
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) throw failure;
    await delay(5);
  }
}

/** Resolves after `ms` milliseconds: for waiting out a real timer the code under test arms. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The sum of a metric's samples whose labels include `labels`, from the server's registry (a
 * histogram's observation count; 0 when the metric is not registered).
 *
 * @example assert.equal(await metric(server, 'coredns_cache_hits_total', { type: 'success' }), 1);
 */
export async function metric(server: TestServer, name: string, labels: Record<string, string> = {}): Promise<number> {
  // A histogram counts its observations in the `_count` sample.
  return sumSamples(server, name, labels, (sampleName) => sampleName === undefined || sampleName === name || sampleName === `${name}_count`);
}

/**
 * The sum of the values a histogram observed (its `_sum` samples) in the series whose labels
 * include `labels`, from the server's registry (0 when the metric is not registered).
 *
 * @example assert.equal(await histogramSum(server, 'coredns_dns_response_size_bytes', { zone: 'example.org.' }), 2 * 56);
 */
export async function histogramSum(server: TestServer, name: string, labels: Record<string, string> = {}): Promise<number> {
  return sumSamples(server, name, labels, (sampleName) => sampleName === `${name}_sum`);
}

async function sumSamples(server: TestServer, name: string, labels: Record<string, string>, counts: (sampleName: string | undefined) => boolean): Promise<number> {
  const collector = server.server.registry.getSingleMetric(name);
  if (collector === undefined) return 0;
  const { values } = await collector.get();
  let total = 0;
  for (const sample of values) {
    if (!counts((sample as { metricName?: string }).metricName)) continue;
    const sampleLabels = sample.labels as Record<string, string | number>;
    if (Object.entries(labels).every(([k, v]) => String(sampleLabels[k]) === v)) total += sample.value;
  }
  return total;
}

/**
 * Resolves when `emitter` (a socket, an HTTP/2 session) emits 'close', whatever 'error' came first:
 * a connection the server cuts often ends with a reset, and that is the end a test waits for.
 * `events.once(socket, 'close')` would reject on that reset instead.
 */
export function whenClosed(emitter: EventEmitter): Promise<void> {
  emitter.on('error', () => undefined);
  return new Promise((resolve) => emitter.once('close', () => resolve()));
}
