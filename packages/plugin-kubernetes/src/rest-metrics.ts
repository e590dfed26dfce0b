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
import type { ClientRequest, IncomingMessage } from 'node:http';
import { hubHttpChannel } from '@foghorn/kube';
import type { HubHttpRequest } from '@foghorn/kube';
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
    // Under -workers the informers' requests are the primary's; it tells each to one worker.
    subscribe(hubHttpChannel, (message) => {
      const told = message as HubHttpRequest;
      const host = this.hostOf(told.host, told.protocol);
      if (host !== undefined) this.record(told.method, host, told.code, told.seconds);
    });
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
    if (header === undefined) return undefined;
    if (this.hosts.has(header)) return header;
    const withPort = `${header}:${protocol === 'http:' ? 80 : 443}`;
    return this.hosts.has(withPort) ? withPort : undefined;
  }

  private requestHost(request: ClientRequest): string | undefined {
    const header = request.getHeader('host');
    return this.hostOf(typeof header === 'string' ? header : undefined, (request as ClientRequest & { protocol?: string }).protocol);
  }

  private start(request: ClientRequest): void {
    if (this.hosts.size === 0 || this.requestHost(request) === undefined) return;
    this.started.set(request, this.now());
  }

  private finish(request: ClientRequest, code: string): void {
    const at = this.started.get(request);
    if (at === undefined) return;
    this.started.delete(request);
    this.record(request.method, this.requestHost(request)!, code, (this.now() - at) / 1000);
  }

  private record(verb: string, host: string, code: string, seconds: number): void {
    this.metrics.requestDuration.observe({ verb, host }, seconds);
    this.metrics.requests.inc({ code, method: verb, host });
  }
}
