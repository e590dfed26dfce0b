/** The template plugin's metrics, named and labelled as CoreDNS's plugin/template/metrics.go. */
import { counter } from '@foghorn/core';
import type { Counter, Registry } from 'prom-client';

type Failure = 'server' | 'zone' | 'view' | 'class' | 'type' | 'section' | 'template';

export interface TemplateMetrics {
  /** `coredns_template_matches_total{server, zone, view, class, type}` */
  readonly matches: Counter<'server' | 'zone' | 'view' | 'class' | 'type'>;
  /** `coredns_template_template_failures_total{server, zone, view, class, type, section, template}` */
  readonly templateFailures: Counter<Failure>;
  /** `coredns_template_rr_failures_total{server, zone, view, class, type, section, template}` */
  readonly rrFailures: Counter<Failure>;
}

/** Creates the metrics in `registry`, or returns the ones already there (several blocks, reloads). */
export function createTemplateMetrics(registry: Registry): TemplateMetrics {
  const failure: Failure[] = ['server', 'zone', 'view', 'class', 'type', 'section', 'template'];
  return {
    matches: counter(registry, { name: 'coredns_template_matches_total', help: 'Counter of template regex matches.', labelNames: ['server', 'zone', 'view', 'class', 'type'] }),
    templateFailures: counter(registry, { name: 'coredns_template_template_failures_total', help: 'Counter of go template failures.', labelNames: failure }),
    rrFailures: counter(registry, { name: 'coredns_template_rr_failures_total', help: 'Counter of mis-templated RRs.', labelNames: failure }),
  };
}
