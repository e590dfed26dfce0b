/**
 * The REST client metrics (CoreDNS plugin/kubernetes/metrics.go, fed there by client-go's
 * metrics hooks), measured from Node's HTTP client diagnostics channels: every request to an
 * API server this plugin watches is timed from start to response headers and counted by status
 * (`<error>` when it failed without one). There is no client-side rate limiter, so
 * `coredns_kubernetes_rest_client_rate_limiter_duration_seconds` stays empty.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { KubernetesMetrics } from './metrics.js';

export class RestClientMetrics {
  /** `host:port` of every API server in use. */
  private readonly hosts = new Set<string>();
  private readonly started = new WeakMap<ClientRequest, number>();

  constructor(
    private readonly metrics: KubernetesMetrics,
    private readonly now: () => number = () => performance.now(),
  ) {
    subscribe('http.client.request.start', (message) => this.start((message as { request: ClientRequest }).request));
    subscribe('http.client.response.finish', (message) => {
      const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
      this.finish(request, String(response.statusCode ?? '<error>'));
    });
    subscribe('http.client.request.error', (message) => this.finish((message as { request: ClientRequest }).request, '<error>'));
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

  private hostOf(request: ClientRequest): string | undefined {
    const header = request.getHeader('host');
    if (typeof header !== 'string') return undefined;
    if (this.hosts.has(header)) return header;
    const withPort = `${header}:${(request as ClientRequest & { protocol?: string }).protocol === 'http:' ? 80 : 443}`;
    return this.hosts.has(withPort) ? withPort : undefined;
  }

  private start(request: ClientRequest): void {
    if (this.hosts.size === 0 || this.hostOf(request) === undefined) return;
    this.started.set(request, this.now());
  }

  private finish(request: ClientRequest, code: string): void {
    const at = this.started.get(request);
    if (at === undefined) return;
    this.started.delete(request);
    const host = this.hostOf(request)!;
    const verb = request.method;
    this.metrics.requestDuration.observe({ verb, host }, (this.now() - at) / 1000);
    this.metrics.requests.inc({ code, method: verb, host });
  }
}
