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
