/**
 * The `/metrics` HTTP listener of one address. Every server block naming the address shares one
 * endpoint (core's {@link HttpEndpoints}, kept in the controller's process-wide `shared` map),
 * and every endpoint exports the same registry (CoreDNS's plugin/metrics).
 *
 * Lifecycle (docs/compatibility.md, "Lifecycle"): opened in OnStartup, closed in OnRestart so the new configuration can
 * bind the port, reopened in OnRestartFailed, closed in OnFinalShutdown. A listen failure is
 * logged and is not fatal, as in CoreDNS.
 *
 * Blocks *own* the open listener while their configuration runs: the last owner's OnShutdown
 * closes it too. CoreDNS never needs that because a failed start ends its process; here a
 * failed `Server.start()` runs only OnShutdown, and the HTTP socket must not outlive it.
 */
import http from 'node:http';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { defineShared, errorMessage, HttpEndpoint, HttpEndpoints, notFound } from '@foghorn/core';
import type { Controller, Logger, WorkerGroup } from '@foghorn/core';
import type { Registry } from 'prom-client';
import { groupMetrics } from './workers.js';

const gzipAsync = promisify(gzip);

/** The only path served, as in CoreDNS. */
const metricsPath = '/metrics';

/** A listen address split as Go's `net.SplitHostPort` does. */
export interface ListenAddress {
  /** As written in the Corefile: `localhost:9153`, `:9153`, `[::1]:9153`. */
  readonly text: string;
  /** Host without brackets; '' means every address. */
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
}

/** What tests and embedding programs can see of an endpoint. */
export interface MetricsListenerInfo {
  /** The address as configured (`127.0.0.1:0`). */
  readonly address: string;
  readonly host: string;
  /** The port actually bound, 0 while closed. */
  readonly port: number;
}

/** The endpoints of each registry, so {@link metricsListeners} can find them without reaching into a Server. */
const endpointsByRegistry = new WeakMap<Registry, HttpEndpoints<MetricsEndpoint>>();

/**
 * The metrics listeners serving `registry` (a Server's `registry`), with their bound ports:
 * how a test that configured `prometheus 127.0.0.1:0` learns where to scrape.
 */
export function metricsListeners(registry: Registry): MetricsListenerInfo[] {
  const endpoints = endpointsByRegistry.get(registry);
  if (!endpoints) return [];
  return [...endpoints].map((e) => ({ address: e.address, host: e.host, port: e.port }));
}

const EndpointsKey = defineShared<HttpEndpoints<MetricsEndpoint>>('prometheus/listeners');

/** The process-wide endpoints of `c`'s server, one per address, kept across reloads. */
export function metricsEndpoints(c: Pick<Controller, 'shared' | 'registry'>): HttpEndpoints<MetricsEndpoint> {
  return c.shared(EndpointsKey, () => {
    const endpoints = new HttpEndpoints<MetricsEndpoint>();
    endpointsByRegistry.set(c.registry, endpoints);
    return endpoints;
  });
}

/** One shared `/metrics` listener. */
export class MetricsEndpoint extends HttpEndpoint {
  constructor(
    address: string,
    private readonly registry: Registry,
    log: Logger,
    /** Under `foghorn -workers N`: every scrape reports the sum over the workers (workers.ts). */
    private readonly workers?: WorkerGroup,
  ) {
    super({
      address,
      handler: (req, res) => void this.serve(req, res),
      onError: (error) => log.error(`metrics handler on ${address}: ${error.message}`),
      resolveHost,
      // CoreDNS's metrics server sets no timeouts; a slow scrape of a big registry must finish.
      timeoutMs: 0,
    });
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== metricsPath) return notFound(req, res);
    try {
      const { text, contentType } = this.workers ? await groupMetrics(this.workers) : { text: await this.registry.metrics(), contentType: this.registry.contentType };
      let body = Buffer.from(text);
      const headers: http.OutgoingHttpHeaders = { 'content-type': contentType };
      if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
        body = await gzipAsync(body);
        headers['content-encoding'] = 'gzip';
      }
      headers['content-length'] = body.length;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (error) {
      // promhttp's HTTPErrorOnError.
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`An error has occurred while serving metrics:\n\n${errorMessage(error)}\n`);
    }
  }
}

/**
 * A host name listens on one of its addresses, IPv4 first, as Go's `net.Listen` does
 * (`localhost:9153` is 127.0.0.1 even where `localhost` resolves to ::1 first).
 */
async function resolveHost(host: string): Promise<string> {
  if (isIP(host) !== 0) return host;
  const addresses = await lookup(host, { all: true });
  const chosen = addresses.find((a) => a.family === 4) ?? addresses[0];
  if (!chosen) throw Object.assign(new Error(`lookup ${host}: no such host`), { code: 'ENOTFOUND' });
  return chosen.address;
}
