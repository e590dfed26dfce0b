/**
 * One GET against the API server with the client library's TLS and credentials, but with what
 * its generated API clients lack for an informer: an idle timeout (a stalled list must not hang
 * the informer forever) and a cancel that works at every stage, so `stop()` leaves no socket.
 */
import http from 'node:http';
import https from 'node:https';
import { formatDuration } from '@foghorn/core';
import type { KubeConfig } from '@kubernetes/client-node';

/** An HTTP error from the API server, with the Status body's reason and message when present. */
export class KubeApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** The body of a failed request, as Kubernetes sends it. */
interface StatusBody {
  kind?: unknown;
  reason?: unknown;
  message?: unknown;
}

export function statusError(statusCode: number, body: unknown, fallback: string): KubeApiError {
  const status = (typeof body === 'object' && body !== null ? body : {}) as StatusBody;
  const reason = typeof status.reason === 'string' ? status.reason : fallback;
  const detail = typeof status.message === 'string' && status.message !== '' ? `: ${status.message}` : '';
  return new KubeApiError(statusCode, reason, `${statusCode} ${reason}${detail}`);
}

/** A request in flight: `cancel()` destroys its socket at once. */
export interface PendingRequest<T> {
  readonly result: Promise<T>;
  cancel(): void;
}

/**
 * GETs `path` (with `query`) and parses the JSON body. Rejects with {@link KubeApiError} on a
 * non-2xx status, or with an error when the server sends nothing for `idleTimeoutMs`.
 */
export function getJson(config: KubeConfig, path: string, query: URLSearchParams, idleTimeoutMs: number): PendingRequest<unknown> {
  let request: http.ClientRequest | undefined;
  let cancelled = false;
  let agent: http.Agent | undefined;
  const result = (async (): Promise<unknown> => {
    const cluster = config.getCurrentCluster();
    if (!cluster) throw new Error('no current cluster');
    const url = new URL(cluster.server + path);
    url.search = query.toString();
    const options: https.RequestOptions = {};
    // Puts a fresh agent with the cluster's TLS settings and the Authorization header in options.
    await config.applyToHTTPSOptions(options);
    agent = options.agent instanceof http.Agent ? options.agent : undefined;
    if (cancelled) throw new Error('cancelled');
    return await new Promise<unknown>((resolve, reject) => {
      const transport = url.protocol === 'https:' ? https : http;
      const req = transport.request(url, {
        method: 'GET',
        ...(options.agent !== undefined ? { agent: options.agent } : {}),
        headers: { ...options.headers, Accept: 'application/json' },
        ...(options.auth !== undefined ? { auth: options.auth } : {}),
      });
      request = req;
      const timer = setTimeout(() => req.destroy(new Error(`no data for ${formatDuration(idleTimeoutMs)}`)), idleTimeoutMs);
      const touch = (): void => {
        timer.refresh();
      };
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.on('response', (res) => {
        touch();
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          touch();
          chunks.push(chunk);
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            reject(statusError(status, body, http.STATUS_CODES[status] ?? 'Unknown'));
          } else if (body === undefined) {
            reject(new Error(`invalid JSON in a ${status} response`));
          } else {
            resolve(body);
          }
        });
      });
      req.end();
    });
  })().finally(() => agent?.destroy());
  return {
    result,
    cancel(): void {
      cancelled = true;
      request?.destroy(new Error('cancelled'));
      agent?.destroy();
    },
  };
}
