/** The *dns64* plugin's metric, named and labelled as CoreDNS's `plugin/dns64/metrics.go`. */
import { counterVec } from '@foghorn/core';
import type { CounterVec } from '@foghorn/core';
import type { Registry } from 'prom-client';

export interface Dns64Metrics {
  /** `coredns_dns64_requests_translated_total{server}` */
  readonly translated: CounterVec;
}

/** Creates the metric in `registry`, or returns the one already there (several blocks, reloads). */
export function createDns64Metrics(registry: Registry): Dns64Metrics {
  return {
    translated: counterVec(registry, { name: 'coredns_dns64_requests_translated_total', help: 'Counter of DNS requests translated by dns64.', labelNames: ['server'] }),
  };
}
