/**
 * The acl plugin's metrics, named and labelled as CoreDNS's `plugin/acl/metrics.go`. Allowed
 * queries carry no `zone` label there (they may match no rule, hence no zone), so not here either.
 */
import { counter } from '@foghorn/core';
import type { Counter, Registry } from 'prom-client';

export interface AclMetrics {
  /** `coredns_acl_blocked_requests_total{server, zone, view}` */
  readonly blocked: Counter<'server' | 'zone' | 'view'>;
  /** `coredns_acl_filtered_requests_total{server, zone, view}` */
  readonly filtered: Counter<'server' | 'zone' | 'view'>;
  /** `coredns_acl_allowed_requests_total{server, view}` */
  readonly allowed: Counter<'server' | 'view'>;
  /** `coredns_acl_dropped_requests_total{server, zone, view}` */
  readonly dropped: Counter<'server' | 'zone' | 'view'>;
}

/**
 * Creates the metrics in `registry`, or returns the ones already there, so several `acl` blocks
 * and reloads never hit "already registered".
 */
export function createAclMetrics(registry: Registry): AclMetrics {
  const zoned = ['server', 'zone', 'view'] as const;
  return {
    blocked: counter(registry, { name: 'coredns_acl_blocked_requests_total', help: 'Counter of DNS requests being blocked.', labelNames: zoned }),
    filtered: counter(registry, { name: 'coredns_acl_filtered_requests_total', help: 'Counter of DNS requests being filtered.', labelNames: zoned }),
    allowed: counter(registry, { name: 'coredns_acl_allowed_requests_total', help: 'Counter of DNS requests being allowed.', labelNames: ['server', 'view'] }),
    dropped: counter(registry, { name: 'coredns_acl_dropped_requests_total', help: 'Counter of DNS requests being dropped.', labelNames: zoned }),
  };
}
