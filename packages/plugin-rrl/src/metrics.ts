/**
 * The rrl plugin's metrics. coredns/rrl names two counters, `coredns_rrl_responses_exceeded_total`
 * and `coredns_rrl_requests_exceeded_total`, labelled by `client_ip`; under a spoofed flood that
 * label makes a series per forged address, which grows without bound, so here they carry the
 * listener and the response category instead. Dropped and slipped replies, and recycled accounts,
 * are counted apart.
 */
import { counterVec } from '@foghorn/core';
import type { Controller, CounterVec } from '@foghorn/core';

export interface RrlMetrics {
  /** `coredns_rrl_responses_exceeded_total{server, category}` */
  readonly responsesExceeded: CounterVec;
  /** `coredns_rrl_responses_dropped_total{server, category}` */
  readonly responsesDropped: CounterVec;
  /** `coredns_rrl_responses_slipped_total{server, category}` */
  readonly responsesSlipped: CounterVec;
  /** `coredns_rrl_requests_exceeded_total{server}` */
  readonly requestsExceeded: CounterVec;
  /** `coredns_rrl_accounts_recycled_total{server}` */
  readonly accountsRecycled: CounterVec;
}

/** Creates the metrics in `registry`, or returns the ones already there (several blocks, reloads). */
export function createRrlMetrics(registry: Controller['registry']): RrlMetrics {
  const byCategory = ['server', 'category'];
  return {
    responsesExceeded: counterVec(registry, {
      name: 'coredns_rrl_responses_exceeded_total',
      help: 'Counter of responses exceeding their rate limit (dropped, slipped, or sent under report-only).',
      labelNames: byCategory,
    }),
    responsesDropped: counterVec(registry, { name: 'coredns_rrl_responses_dropped_total', help: 'Counter of responses dropped by rate limiting.', labelNames: byCategory }),
    responsesSlipped: counterVec(registry, {
      name: 'coredns_rrl_responses_slipped_total',
      help: 'Counter of rate-limited responses sent truncated (TC=1, sections empty) instead of dropped.',
      labelNames: byCategory,
    }),
    requestsExceeded: counterVec(registry, { name: 'coredns_rrl_requests_exceeded_total', help: 'Counter of requests exceeding QPS limit.', labelNames: ['server'] }),
    accountsRecycled: counterVec(registry, {
      name: 'coredns_rrl_accounts_recycled_total',
      help: 'Counter of rate accounts taken over by another client or name because the table was full.',
      labelNames: ['server'],
    }),
  };
}
