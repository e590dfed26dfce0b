/**
 * Metric objects that survive reloads and several server blocks. A plugin's setup runs once per
 * block and again on every reload against the same registry, so creating a metric must return the
 * one already registered under its name instead of failing with "already registered".
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { CounterConfiguration, GaugeConfiguration, HistogramConfiguration, Metric, Registry } from 'prom-client';

/** CoreDNS's `plugin.TimeBuckets`, `prometheus.ExponentialBuckets(0.00025, 2, 16)`: 0.25 ms … 8.192 s. */
export const timeBuckets: readonly number[] = Array.from({ length: 16 }, (_, i) => 0.00025 * 2 ** i);

/** CoreDNS's `plugin.SlimTimeBuckets`, in seconds. */
export const slimTimeBuckets: readonly number[] = [0.00025, 0.0025, 0.025, 0.25, 2.5];

/**
 * The metric registered under `name` when it is of the wanted kind, or what `create` makes (and
 * registers) when the name is free. A name taken by another kind of collector is a programming
 * error, so it throws rather than hand back something that would fail on first use.
 */
export function registerMetric<M>(registry: Registry, name: string, isKind: (existing: unknown) => existing is M, create: () => M): M {
  const existing: unknown = registry.getSingleMetric(name);
  if (existing === undefined) return create();
  if (isKind(existing)) return existing;
  throw new Error(`metric ${name} is already registered as a different collector`);
}

/**
 * Registers a custom collector (an object with prom-client's `name`, `get()` and `reset()`), or
 * returns the one of the same kind registered under its name already.
 */
export function registerCollector<C extends { readonly name: string }>(registry: Registry, collector: C, isKind: (existing: unknown) => existing is C): C {
  return registerMetric(registry, collector.name, isKind, () => {
    // prom-client types registerMetric for its own classes; the registry only calls name,
    // get() and reset().
    registry.registerMetric(collector as unknown as Metric);
    return collector;
  });
}

/** The configuration of a metric, less `registers`: the registry is the helper's first argument. */
export type MetricOptions<C> = Omit<C, 'registers'>;

/** A prom-client `Counter` in `registry`, created once. */
export function counter<T extends string = string>(registry: Registry, config: MetricOptions<CounterConfiguration<T>>): Counter<T> {
  return registerMetric(registry, config.name, (m): m is Counter<T> => m instanceof Counter, () => new Counter<T>({ ...config, registers: [registry] }));
}

/** A prom-client `Gauge` in `registry`, created once. */
export function gauge<T extends string = string>(registry: Registry, config: MetricOptions<GaugeConfiguration<T>>): Gauge<T> {
  return registerMetric(registry, config.name, (m): m is Gauge<T> => m instanceof Gauge, () => new Gauge<T>({ ...config, registers: [registry] }));
}

/** A prom-client `Histogram` in `registry`, created once. */
export function histogram<T extends string = string>(registry: Registry, config: MetricOptions<HistogramConfiguration<T>>): Histogram<T> {
  return registerMetric(registry, config.name, (m): m is Histogram<T> => m instanceof Histogram, () => new Histogram<T>({ ...config, registers: [registry] }));
}

/**
 * One row of a {@link CounterVec}: the hot path adds to `value`. Resolve it once per label set
 * and keep it.
 */
export interface CounterCell {
  value: number;
}

/** One row of a {@link HistogramVec}. */
export interface HistogramCell {
  /** Records one observation: a scan of the bounds, two additions. */
  observe(value: number): void;
}

/** A row as the registry reads it (prom-client's `MetricValue`). */
interface VecRow {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

const vecBrand = Symbol.for('foghorn.core.vec');

/**
 * A counter or histogram with labels whose children are plain cells, registered in a prom-client
 * registry next to its own metrics.
 *
 * Why not prom-client's `Counter` and `Histogram`: their label children hash and validate the
 * label values again on every `inc()` or `observe()` (about 0.7 µs each on Node 20), which a
 * per-query metric pays on every query. Here `child()` resolves a row once; a query then adds to
 * a number. Rows appear when first resolved, so a holder resolves a child on first use, as
 * prom-client and client_golang create a row on the first `inc()` or `observe()`. The registry
 * reads them through `get()` and prints them as it prints prom-client's.
 */
abstract class CellVec<Cell> {
  readonly [vecBrand] = true;
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  protected rows = new Map<string, { labels: Record<string, string>; cell: Cell }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** The cell for these label values, in `labelNames` order, created on first use. */
  child(...values: string[]): Cell {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name}: expected label values for ${this.labelNames.join(', ')}, got ${values.length}`);
    // \u0000 cannot occur in a label value a plugin builds from DNS names or addresses.
    const key = values.join('\u0000');
    let row = this.rows.get(key);
    if (row === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
      row = { labels, cell: this.newCell() };
      this.rows.set(key, row);
    }
    return row.cell;
  }

  /** `registry.resetMetrics()`: rows are forgotten; cells handed out before are no longer read. */
  reset(): void {
    this.rows = new Map();
  }

  /** The registry's read (awaited by prom-client). */
  get(): Promise<{ name: string; help: string; type: 'counter' | 'gauge' | 'histogram'; aggregator: 'sum'; values: VecRow[] }> {
    const values: VecRow[] = [];
    for (const { labels, cell } of this.rows.values()) this.rowsOf(labels, cell, values);
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  protected abstract newCell(): Cell;
  protected abstract rowsOf(labels: Record<string, string>, cell: Cell, out: VecRow[]): void;
}

/** Rows of plain numbers: what a counter and a gauge share. */
abstract class NumberVec extends CellVec<CounterCell> {
  protected newCell(): CounterCell {
    return { value: 0 };
  }

  protected rowsOf(labels: Record<string, string>, cell: CounterCell, out: VecRow[]): void {
    out.push({ labels, value: cell.value });
  }
}

/** A counter with labels over {@link CounterCell}s. */
export class CounterVec extends NumberVec {
  readonly type = 'counter' as const;
}

/**
 * A gauge with labels over the same cells (`coredns_cache_entries`): the holder sets `value`.
 * Summed over the workers of `foghorn -workers N`, as the entries of every worker's cache add up.
 */
export class GaugeVec extends NumberVec {
  readonly type = 'gauge' as const;
}

class Buckets implements HistogramCell {
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: Float64Array) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    // A linear scan: sixteen bounds at most, and DNS timings land in the first few.
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/**
 * A histogram with labels over {@link HistogramCell}s, exported as prom-client exports its
 * `Histogram`: cumulative `_bucket` rows with `le` first, `le="+Inf"`, then `_sum` and `_count`.
 */
export class HistogramVec extends CellVec<HistogramCell> {
  readonly type = 'histogram' as const;
  private readonly bounds: Float64Array;

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    this.bounds = Float64Array.from(buckets);
  }

  protected newCell(): HistogramCell {
    return new Buckets(this.bounds);
  }

  protected rowsOf(labels: Record<string, string>, cell: HistogramCell, out: VecRow[]): void {
    const { counts, sum, count } = cell as Buckets;
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      cumulative += counts[i]!;
      out.push({ metricName: bucket, labels: { le: this.bounds[i]!, ...labels }, value: cumulative });
    }
    out.push({ metricName: bucket, labels: { le: '+Inf', ...labels }, value: count });
    out.push({ metricName: `${this.name}_sum`, labels, value: sum });
    out.push({ metricName: `${this.name}_count`, labels, value: count });
  }
}

function isVec<V extends CounterVec | GaugeVec | HistogramVec>(type: V['type']): (existing: unknown) => existing is V {
  return (existing): existing is V => typeof existing === 'object' && existing !== null && vecBrand in existing && (existing as V).type === type;
}

/** A {@link CounterVec} in `registry`, created once (later calls get the registered one). */
export function counterVec(registry: Registry, config: { name: string; help: string; labelNames: readonly string[] }): CounterVec {
  return registerCollector(registry, new CounterVec(config.name, config.help, config.labelNames), isVec<CounterVec>('counter'));
}

/** A {@link GaugeVec} in `registry`, created once (later calls get the registered one). */
export function gaugeVec(registry: Registry, config: { name: string; help: string; labelNames: readonly string[] }): GaugeVec {
  return registerCollector(registry, new GaugeVec(config.name, config.help, config.labelNames), isVec<GaugeVec>('gauge'));
}

/** A {@link HistogramVec} in `registry`, created once (later calls get the registered one). */
export function histogramVec(registry: Registry, config: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[] }): HistogramVec {
  return registerCollector(registry, new HistogramVec(config.name, config.help, config.labelNames, config.buckets), isVec<HistogramVec>('histogram'));
}
