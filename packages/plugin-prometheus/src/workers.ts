/**
 * `/metrics` under `foghorn -workers N`: one scrape reports the whole server. The worker that
 * receives the scrape asks every worker for its registry as JSON (core's `WorkerGroup.ask`, the
 * primary fanning out over IPC), and combines the answers with prom-client's
 * `AggregatorRegistry.aggregate`, row by row (same name and labels), by each metric's `aggregator`:
 *
 * - counters and histograms are summed: queries, replies, durations, panics, CPU seconds, the
 *   work of every worker;
 * - gauges are summed where each worker holds its own share (cache entries, memory, open file
 *   descriptors), and take the largest value where every worker holds a copy of the same state
 *   or reports a per-process fact ({@link sameInEveryWorker}): summing those would multiply
 *   them by N;
 * - `process_start_time_seconds` is the latest start of any worker (prom-client would omit
 *   it), so a restarted worker shows as a restart;
 * - prom-client's own choices stand for the rest (`nodejs_version_info`: the first;
 *   `nodejs_eventloop_lag_*`: average, min or max).
 *
 * A worker that died and was restarted would start its counters from zero, and the sum would go
 * down, which Prometheus reads as a reset of the whole server's counter (its `rate()` then
 * counts the remaining total again as new). So a restarted worker adds the counters and
 * histograms its predecessor last reported ({@link WorkerGroup.predecessor}) to its own: the
 * sums never go down. What the dead process counted after the last scrape is lost, as in
 * a single process that dies.
 */
import type { WorkerGroup } from '@foghorn/core';
import { AggregatorRegistry } from 'prom-client';
import type { Aggregator, Registry } from 'prom-client';

/** One registry as `getMetricsAsJSON()` gives it: what crosses the IPC channel. */
type RegistryJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** The `WorkerGroup` topic a worker answers with its registry. */
export const METRICS_TOPIC = 'prometheus:metrics';

/** How long a scrape waits for every worker's metrics; Prometheus' default scrape timeout is 10 s. */
export const GATHER_TIMEOUT_MS = 5_000;

/** Gauges that hold the same value in every worker, or a per-process fact that does not add up. */
export const sameInEveryWorker: ReadonlyMap<string, Aggregator> = new Map<string, Aggregator>([
  ['process_start_time_seconds', 'max'],
  ['process_max_fds', 'max'],
  ['coredns_build_info', 'max'],
  ['coredns_plugin_enabled', 'max'],
  ['coredns_reload_version_info', 'max'],
  ['coredns_hosts_entries', 'max'],
  ['coredns_hosts_reload_timestamp_seconds', 'max'],
  ['coredns_lighthouse_objects', 'max'],
  // The stalest worker's age: the one an alert should see.
  ['coredns_lighthouse_last_event_age_seconds', 'max'],
]);

/**
 * This worker's answer: its registry as JSON, plus the counters and histograms of `predecessor`
 * (the answer of the process this one replaced, if any), marked with how each metric combines
 * across workers.
 */
export async function workerMetrics(registry: Registry, predecessor?: RegistryJson): Promise<RegistryJson> {
  let metrics = await registry.getMetricsAsJSON();
  if (predecessor !== undefined) metrics = await AggregatorRegistry.aggregate([metrics, workDone(predecessor)]).getMetricsAsJSON();
  for (const metric of metrics) {
    const aggregator = sameInEveryWorker.get(metric.name) ?? (String(metric.type) === 'gauge' && metric.name.endsWith('_info') ? 'max' : undefined);
    if (aggregator !== undefined) metric.aggregator = aggregator;
  }
  return metrics;
}

/** Gauges are a dead process's state, gone with it; its counters and histograms are work done. */
function workDone(metrics: RegistryJson): RegistryJson {
  return metrics.filter((metric) => String(metric.type) === 'counter' || String(metric.type) === 'histogram');
}

/**
 * The exposition of every worker's metrics combined. A worker the primary is restarting counts
 * with the counters and histograms its last process reported (which its replacement carries on),
 * so the scrape succeeds and the sums hold while it is down. Rejects when a running worker did
 * not answer (stuck): a partial sum would read as a counter reset to Prometheus, a failed scrape
 * reads as what it is.
 */
export async function groupMetrics(workers: WorkerGroup): Promise<{ text: string; contentType: string }> {
  const answers = await workers.ask(METRICS_TOPIC, GATHER_TIMEOUT_MS);
  const all: RegistryJson[] = [];
  for (const answer of answers) {
    if (!('error' in answer)) all.push(answer.value as RegistryJson);
    else if (!answer.down) throw new Error(`worker ${answer.worker}: ${answer.error}`);
    else if (answer.last !== undefined) all.push(workDone(answer.last as RegistryJson));
  }
  const combined = AggregatorRegistry.aggregate(all);
  return { text: await combined.metrics(), contentType: combined.contentType };
}
