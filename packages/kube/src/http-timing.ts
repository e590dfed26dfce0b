/**
 * Times this process's HTTP client requests from Node's diagnostics channels: what CoreDNS's
 * REST client metrics (client-go's metrics hooks) measure. The kubernetes plugin counts the
 * requests to its API servers this way, and under `-workers` the primary's informer hub times its
 * own requests the same way and tells each to one worker (hub.ts, {@link hubHttpChannel}).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';

/** One request, once answered or failed. */
export interface TimedRequest {
  readonly method: string;
  /** The request's Host header (`host` or `host:port`), undefined without one. */
  readonly host: string | undefined;
  /** `http:` or `https:`, for a Host header without a port. */
  readonly protocol: string | undefined;
  /** The status code, or `<error>` when the request failed without one. */
  readonly code: string;
  /** From the request's start to its response headers (a watch: until its stream starts). */
  readonly seconds: number;
}

/**
 * Calls `done` for every HTTP client request of this process that `accept`s its Host header and
 * protocol when it starts; returns the function that stops it.
 */
export function timeHttpRequests(done: (request: TimedRequest) => void, accept: (host: string | undefined, protocol: string | undefined) => boolean = () => true): () => void {
  const started = new WeakMap<ClientRequest, number>();
  const target = (request: ClientRequest): [string | undefined, string | undefined] => {
    const host = request.getHeader('host');
    return [typeof host === 'string' ? host : undefined, (request as ClientRequest & { protocol?: string }).protocol];
  };
  const onStart = (message: unknown): void => {
    const { request } = message as { request: ClientRequest };
    if (accept(...target(request))) started.set(request, performance.now());
  };
  const finish = (request: ClientRequest, code: string): void => {
    const at = started.get(request);
    if (at === undefined) return;
    started.delete(request);
    const [host, protocol] = target(request);
    done({ method: request.method, host, protocol, code, seconds: (performance.now() - at) / 1000 });
  };
  const onResponse = (message: unknown): void => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    finish(request, String(response.statusCode ?? '<error>'));
  };
  const onError = (message: unknown): void => finish((message as { request: ClientRequest }).request, '<error>');
  subscribe('http.client.request.start', onStart);
  subscribe('http.client.response.finish', onResponse);
  subscribe('http.client.request.error', onError);
  return () => {
    unsubscribe('http.client.request.start', onStart);
    unsubscribe('http.client.response.finish', onResponse);
    unsubscribe('http.client.request.error', onError);
  };
}

/** The diagnostics channel a `-workers` worker publishes its primary's {@link TimedRequest}s on. */
export const hubHttpChannel = 'foghorn.kube.hub.http-client';
