/**
 * grpc's metrics with CoreDNS's names, help texts and labels (plugin/grpc/metrics.go). Rows are
 * core's cells, resolved once per upstream (and rcode), so a query adds to numbers.
 */
import { counterVec, histogramVec, timeBuckets } from '@foghorn/core';
import type { CounterVec, HistogramVec } from '@foghorn/core';
import type { Registry } from 'prom-client';

export interface GrpcMetrics {
  /** `coredns_grpc_requests_total{to}` */
  readonly requests: CounterVec;
  /** `coredns_grpc_responses_total{rcode, to}` */
  readonly responses: CounterVec;
  /** `coredns_grpc_request_duration_seconds{to}` */
  readonly duration: HistogramVec;
}

/** Creates the metrics in `registry`, or returns the ones there: one set for every block and reload. */
export function createGrpcMetrics(registry: Registry): GrpcMetrics {
  return {
    requests: counterVec(registry, { name: 'coredns_grpc_requests_total', help: 'Counter of requests made per upstream.', labelNames: ['to'] }),
    // CoreDNS's help text of responses_total is the same as requests_total's.
    responses: counterVec(registry, { name: 'coredns_grpc_responses_total', help: 'Counter of requests made per upstream.', labelNames: ['rcode', 'to'] }),
    duration: histogramVec(registry, {
      name: 'coredns_grpc_request_duration_seconds',
      help: 'Histogram of the time each request took.',
      labelNames: ['to'],
      buckets: timeBuckets,
    }),
  };
}
