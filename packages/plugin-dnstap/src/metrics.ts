/**
 * The dnstap plugin's metric. CoreDNS has none: it only logs `Dropped dnstap messages: N` every
 * 10 s. A counter lets an alert see a collector that cannot keep up.
 */
import { counter } from '@foghorn/core';
import type { Counter, Registry } from 'prom-client';

export interface DnstapMetrics {
  /** `coredns_dnstap_dropped_total{endpoint}`: messages dropped because the queue was full or a collector fell behind. */
  readonly dropped: Counter<'endpoint'>;
}

/** The metrics in `registry`, or the ones already there (reloads, several blocks). */
export function createDnstapMetrics(registry: Registry): DnstapMetrics {
  return {
    dropped: counter<'endpoint'>(registry, {
      name: 'coredns_dnstap_dropped_total',
      help: 'Counter of dnstap messages dropped because the queue was full or a collector fell behind.',
      labelNames: ['endpoint'],
    }),
  };
}
