/**
 * `prometheus [ADDRESS] [{ runtime_metrics }]`: parsing, then wiring the handler, the shared
 * metric objects and the shared `/metrics` listener into the server's lifecycle (CoreDNS's plugin/metrics; docs/compatibility.md, "Lifecycle").
 */
import { defineShared, Dispenser, errOnce, errorMessage, HandlerNames, parseHttpAddress, Servers, Views } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { splitHostPort } from '@foghorn/core/wire';
import { metricsEndpoints, MetricsEndpoint } from './endpoint.js';
import type { ListenAddress } from './endpoint.js';
import { Prometheus } from './handler.js';
import { buildInfoLabels, createDnsMetrics, ensureDefaultMetrics } from './metrics.js';
import type { DnsMetrics } from './metrics.js';
import { METRICS_TOPIC, workerMetrics } from './workers.js';

/** Where `/metrics` is served when no ADDRESS is given: loopback only, as CoreDNS. */
export const defaultAddress = 'localhost:9153';

/** The parsed directive. */
export interface PrometheusOptions {
  /** The listen address, split like Go's `net.SplitHostPort`. */
  readonly address: ListenAddress;
}

const defaultListenAddress: ListenAddress = { text: defaultAddress, host: 'localhost', port: 9153 };

/**
 * Parses the directive's tokens. Pure: tokens in, options out, or a `file:line:column` error.
 * Takes the dispenser part of the controller, so tests build one from Corefile text.
 */
export function parsePrometheus(c: Dispenser): PrometheusOptions {
  let options: PrometheusOptions | undefined;
  while (c.next()) {
    if (options) throw errOnce(c);
    options = { address: parseListenAddress(c, defaultAddress) };
    while (c.nextBlock()) {
      switch (c.val()) {
        case 'runtime_metrics':
          // Node's runtime metrics (prom-client's defaults) are always exported, so this only validates.
          if (c.nextArg()) throw c.argError();
          break;
        case 'tls':
          throw c.error('tls is not supported: serve /metrics on loopback or put a TLS proxy in front');
        default:
          throw c.error(`unknown option: ${c.val()}`);
      }
    }
  }
  return options ?? { address: defaultListenAddress };
}

/**
 * `HOST:PORT`, `:PORT` or `[IPv6]:PORT`, with Go's `net.SplitHostPort` errors. Unlike Go, the
 * port must be a number from 0 to 65535: Node cannot listen on a service name like `:http`.
 */
function parseListenAddress(c: Dispenser, fallback: string): ListenAddress {
  const text = parseHttpAddress(c, fallback);
  const { host, port } = splitHostPort(text);
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
    throw c.error(`address ${text}: port must be a number from 0 to 65535, got '${port}'`);
  }
  return { text, host, port: Number(port) };
}

/**
 * Blocks that already have this plugin, by the block's key list (one array per block and
 * configuration). CoreDNS's `metrics` alias runs setup a second time for the same block; this
 * makes `prometheus` plus `metrics` in one block the same "only once" error as two `prometheus`.
 */
const blocksWithPlugin = new WeakSet<object>();

/** The process's DNS metrics and `coredns_plugin_enabled` rows, shared by every block and reload. */
const MetricsKey = defineShared<DnsMetrics>('prometheus/metrics');
const EnabledRowsKey = defineShared<EnabledRows>('prometheus/enabled');

/** Parses and wires one server block's `prometheus` (or `metrics`). */
export function setup(c: Controller): void {
  const options = parsePrometheus(c);
  if (blocksWithPlugin.has(c.keys)) {
    const first = new Dispenser(c.tokens, c.directive);
    first.next();
    throw errOnce(first);
  }
  blocksWithPlugin.add(c.keys);

  const metrics = c.shared(MetricsKey, () => {
    ensureDefaultMetrics(c.registry);
    return createDnsMetrics(c.registry);
  });
  // CoreDNS sets it in setup, as soon as any block has the plugin.
  metrics.buildInfo.set(buildInfoLabels(), 1);

  const address = options.address;
  const endpoint = metricsEndpoints(c).get(address.text, (text) => new MetricsEndpoint(text, c.registry, c.log, c.workers));
  // What this worker tells the one that was scraped (workers.ts); registering again replaces.
  // A restarted worker's answer includes its predecessor's counters (workers.ts).
  const predecessor = c.workers?.predecessor(METRICS_TOPIC) as Parameters<typeof workerMetrics>[1];
  c.workers?.answer(METRICS_TOPIC, () => workerMetrics(c.registry, predecessor));
  // Identifies this block's claim on the shared listener (see endpoint.ts).
  const owner = {};

  // One row per handler of the block, per listener, with the block's first zone (docs/compatibility.md, "Setup order").
  const firstKey = c.keys[0];
  const enabledRows = (): EnabledLabels[] =>
    firstKey ? c.use(Servers).flatMap((server) => c.use(HandlerNames).map((name) => ({ server, zone: firstKey.zone, view: viewOf(c), name }))) : [];
  const rows = c.shared(EnabledRowsKey, () => new EnabledRows(metrics));
  const start = async (): Promise<void> => {
    try {
      await endpoint.acquire(owner);
    } catch (error) {
      c.log.error(`Failed to start metrics handler: ${errorMessage(error)}`);
    }
    for (const labels of enabledRows()) rows.claim(owner, labels);
  };

  c.onStartup(start);
  c.onRestart(async () => {
    await endpoint.close();
    // CoreDNS resets the gauge on reload; the new configuration sets its own rows.
    rows.reset();
  });
  c.onRestartFailed(start);
  c.onShutdown(async () => {
    await endpoint.release(owner);
    // A configuration that failed to start takes its rows away again.
    for (const labels of enabledRows()) rows.release(owner, labels);
  });
  c.onFinalShutdown(() => endpoint.close());

  // The handler is made once every plugin of the block has set up: the view is known by then.
  c.addHandler((next) => new Prometheus(c.directive, next, metrics, viewOf(c)));
}

/** The block's view, the `view` label (CoreDNS's `Config.ViewName`); '' without one. */
function viewOf(c: Controller): string {
  return c.use(Views)[0]?.name ?? '';
}

type EnabledLabels = { server: string; zone: string; view: string; name: string };

/**
 * The `coredns_plugin_enabled` rows and the block that set each. A row is removed only by the
 * block that set it last, so the old configuration's OnShutdown, which runs after the new one
 * started, cannot remove a row the new configuration set again.
 */
class EnabledRows {
  private readonly owners = new Map<string, object>();

  constructor(private readonly metrics: DnsMetrics) {}

  claim(owner: object, labels: EnabledLabels): void {
    this.owners.set(keyOf(labels), owner);
    this.metrics.pluginEnabled.set(labels, 1);
  }

  release(owner: object, labels: EnabledLabels): void {
    const key = keyOf(labels);
    if (this.owners.get(key) !== owner) return;
    this.owners.delete(key);
    this.metrics.pluginEnabled.remove(labels);
  }

  reset(): void {
    this.owners.clear();
    this.metrics.pluginEnabled.reset();
  }
}

function keyOf(labels: EnabledLabels): string {
  return `${labels.server}\u0000${labels.zone}\u0000${labels.view}\u0000${labels.name}`;
}
