/**
 * The REST client metrics (CoreDNS plugin/kubernetes/metrics.go, fed there by client-go's
 * metrics hooks), measured from Node's HTTP client diagnostics channels: every request to an
 * API server this plugin watches is timed from start to response headers and counted by status
 * (`<error>` when it failed without one). Under `-workers` the watches are the primary's
 * (@foghorn/kube's hub), which times its requests the same way and tells each to one worker:
 * the sum over workers is one process's. There is no client-side rate limiter, so
 * `coredns_kubernetes_rest_client_rate_limiter_duration_seconds` stays empty.
 */
import { subscribe } from 'node:diagnostics_channel';
import { hubHttpChannel, timeHttpRequests } from '@foghorn/kube';
import type { TimedRequest } from '@foghorn/kube';
import type { KubernetesMetrics } from './metrics.js';

export class RestClientMetrics {
  /** `host:port` of every API server in use. */
  private readonly hosts = new Set<string>();

  constructor(private readonly metrics: KubernetesMetrics) {
    const done = (request: TimedRequest): void => {
      const host = this.hostOf(request.host, request.protocol);
      if (host === undefined) return;
      this.metrics.requestDuration.observe({ verb: request.method, host }, request.seconds);
      this.metrics.requests.inc({ code: request.code, method: request.method, host });
    };
    timeHttpRequests(done, (host, protocol) => this.hostOf(host, protocol) !== undefined);
    // Under -workers the informers' requests are the primary's; it tells each to one worker.
    subscribe(hubHttpChannel, (message) => done(message as TimedRequest));
  }

  /** Starts measuring requests to `server` (an API server URL). */
  watch(server: string): void {
    try {
      const url = new URL(server);
      this.hosts.add(url.port === '' ? `${url.hostname}:${url.protocol === 'http:' ? 80 : 443}` : url.host);
    } catch {
      // Not a URL: nothing to match requests against.
    }
  }

  /** The watched `host:port` a request's Host header names, or undefined. */
  private hostOf(header: string | undefined, protocol: string | undefined): string | undefined {
    if (header === undefined || this.hosts.size === 0) return undefined;
    if (this.hosts.has(header)) return header;
    const withPort = `${header}:${protocol === 'http:' ? 80 : 443}`;
    return this.hosts.has(withPort) ? withPort : undefined;
  }
}
