/**
 * Every `coredns_lighthouse_*` metric. The query path only adds to plain numbers (a Float64Array
 * per block for outcomes, one cell per cluster for records served); prom-client reads them at
 * scrape time through `collect`, so a query never hashes label values.
 */
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { outcomeNames } from './counters.js';
import type { ServedCell } from './counters.js';
import type { SourceRegistry } from './source.js';
import type { ResourceName } from './store.js';

/** The process-wide counters the handlers write into and the collectors read. */
export class LighthouseMetrics {
  private readonly outcomeCounts = new Map<string, Float64Array>();
  private readonly served = new Map<string, ServedCell>();
  private readonly invalid = new Map<string, number>();

  constructor(
    registry: Registry,
    private readonly sources: SourceRegistry,
    private readonly now: () => number = Date.now,
  ) {
    const self = this;
    register(registry, 'coredns_lighthouse_queries_total', () =>
      new Counter({
        name: 'coredns_lighthouse_queries_total',
        help: 'Counter of queries answered by lighthouse, by zones and outcome.',
        labelNames: ['zones', 'outcome'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [zones, counts] of self.outcomeCounts) {
            counts.forEach((value, i) => {
              if (value > 0) this.inc({ zones, outcome: outcomeNames[i]! }, value);
            });
          }
        },
      }),
    );
    register(registry, 'coredns_lighthouse_records_served_total', () =>
      new Counter({
        name: 'coredns_lighthouse_records_served_total',
        help: 'Counter of answer records served, by source cluster (empty for clusterset IPs).',
        labelNames: ['cluster'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [cluster, cell] of self.served) if (cell.value > 0) this.inc({ cluster }, cell.value);
        },
      }),
    );
    register(registry, 'coredns_lighthouse_watch_restarts_total', () =>
      new Counter({
        name: 'coredns_lighthouse_watch_restarts_total',
        help: 'Counter of watch restarts (errors, relists after 410 Gone), by resource.',
        labelNames: ['resource'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [resource, n] of self.sources.restarts()) this.inc({ resource }, n);
        },
      }),
    );
    register(registry, 'coredns_lighthouse_invalid_objects_total', () =>
      new Counter({
        name: 'coredns_lighthouse_invalid_objects_total',
        help: 'Counter of objects with fields lighthouse cannot use (each logged once), by resource; resource "manifests" counts unreadable manifest files.',
        labelNames: ['resource'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [resource, n] of self.invalid) this.inc({ resource }, n);
        },
      }),
    );
    register(registry, 'coredns_lighthouse_objects', () =>
      new Gauge({
        name: 'coredns_lighthouse_objects',
        help: 'Number of objects indexed, by resource.',
        labelNames: ['resource'],
        registers: [registry],
        collect() {
          this.reset();
          const totals: Record<ResourceName, number> = { serviceimports: 0, endpointslices: 0, gateways: 0, submariners: 0 };
          for (const source of self.sources.active()) {
            for (const [resource, n] of Object.entries(source.store.objectCounts())) totals[resource as ResourceName] += n;
          }
          for (const [resource, n] of Object.entries(totals)) this.set({ resource }, n);
        },
      }),
    );
    register(registry, 'coredns_lighthouse_last_event_age_seconds', () =>
      new Gauge({
        name: 'coredns_lighthouse_last_event_age_seconds',
        help: 'Seconds since the last object event from any source (absent before the first).',
        registers: [registry],
        collect() {
          this.reset();
          let last = 0;
          for (const source of self.sources.active()) last = Math.max(last, source.store.lastEventMs);
          if (last > 0) this.set(Math.max(0, (self.now() - last) / 1000));
        },
      }),
    );
  }

  /** Counts one bad object (see problems.ts); process-wide, so it never goes down on reload. */
  readonly countInvalid = (resource: string): void => {
    this.invalid.set(resource, (this.invalid.get(resource) ?? 0) + 1);
  };

  /** The outcome counts of blocks with this `zones` label (kept across reloads). */
  outcomes(zones: string): Float64Array {
    let counts = this.outcomeCounts.get(zones);
    if (!counts) this.outcomeCounts.set(zones, (counts = new Float64Array(outcomeNames.length)));
    return counts;
  }

  servedCell(cluster: string): ServedCell {
    let cell = this.served.get(cluster);
    if (!cell) this.served.set(cluster, (cell = { value: 0 }));
    return cell;
  }
}

/** Creates a metric unless the registry has it (a second Server on the same registry). */
function register(registry: Registry, name: string, create: () => unknown): void {
  if (registry.getSingleMetric(name) === undefined) create();
}
