/**
 * The /health HTTP endpoint: answers `200 OK` for as long as the process runs (it never reports
 * unhealthy, by design: CoreDNS issues #1474, #3290), plus the once-a-second self-probe whose
 * duration tells how loaded the process is. Listening, sharing and closing are core's
 * {@link HttpEndpoint}.
 */
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatDuration, HttpEndpoint, notFound } from '@foghorn/core';
import type { Logger, WorkerGroup } from '@foghorn/core';
import type { HealthMetrics } from './metrics.js';

/** The self-probe's HTTP client timeout. */
const probeTimeoutMs = 3_000;
/** A local probe slower than this is worth a warning (CoreDNS: "1s is pretty random"). */
const slowProbeMs = 1_000;
/** How often the process probes its own /health. */
export const defaultProbeIntervalMs = 1_000;

/** Options for {@link HealthEndpoint}. */
export interface HealthEndpointOptions {
  /** `host:port` as written in the Corefile (`:8080`, `127.0.0.1:0`). */
  readonly address: string;
  readonly metrics: HealthMetrics;
  /** The `plugin/health: ` logger. */
  readonly log: Logger;
  /** Self-probe period in ms (default 1s); 0 disables the probe. */
  readonly probeIntervalMs?: number;
  /** Under `foghorn -workers N`: /health is OK only when every worker answers ({@link serveGroupHealth}). */
  readonly workers?: WorkerGroup | undefined;
}

/** The `WorkerGroup` topic every worker answers while its event loop runs. */
export const HEALTH_TOPIC = 'health';
/** How long /health waits for every worker: below the kubelet's default probe timeout of 1 s. */
export const HEALTH_TIMEOUT_MS = 800;

/** A /health listener that probes itself while open. */
export class HealthEndpoint extends HttpEndpoint {
  private probeTimer: NodeJS.Timeout | undefined;
  private probeInFlight: http.ClientRequest | undefined;

  constructor(private readonly health: HealthEndpointOptions) {
    super({
      address: health.address,
      handler: health.workers ? serveGroupHealth(health.workers) : serveHealth,
      onError: (error) => health.log.error(`health handler on ${health.address}: ${error.message}`),
    });
  }

  /** The URL the self-probe requests; CoreDNS polls `localhost` when the host is empty. */
  get url(): string {
    const host = this.host === '' ? 'localhost' : this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.port}/health`;
  }

  protected override opened(): void {
    const interval = this.health.probeIntervalMs ?? defaultProbeIntervalMs;
    if (interval <= 0) return;
    // Unref'd: the probe must never be what keeps the process alive.
    this.probeTimer = setInterval(() => this.probe(), interval);
    this.probeTimer.unref();
  }

  protected override closing(): void {
    clearInterval(this.probeTimer);
    this.probeTimer = undefined;
    this.probeInFlight?.destroy();
    this.probeInFlight = undefined;
  }

  /** One self-probe: GET our own /health and record how long the answer took. */
  private probe(): void {
    // Go's ticker drops ticks while a request is pending; so do we.
    if (this.probeInFlight || !this.isOpen) return;
    const url = this.url;
    const started = performance.now();
    const { metrics, log } = this.health;
    const request = http.get(url, { agent: false, timeout: probeTimeoutMs }, (response) => {
      this.probeInFlight = undefined;
      response.resume();
      const elapsedMs = performance.now() - started;
      metrics.duration.observe(elapsedMs / 1000);
      if (elapsedMs > slowProbeMs) log.warning(`Local health request to ${JSON.stringify(url)} took more than 1s: ${formatDuration(elapsedMs)}`);
    });
    this.probeInFlight = request;
    request.on('timeout', () => request.destroy(new Error('context deadline exceeded (Client.Timeout exceeded while awaiting headers)')));
    request.on('error', (error) => {
      // Destroyed by close(): the probe was cancelled, not failed.
      if (this.probeInFlight !== request) return;
      this.probeInFlight = undefined;
      metrics.duration.observe((performance.now() - started) / 1000);
      metrics.failures.inc();
      log.warning(`Local health request to ${JSON.stringify(url)} failed: Get ${JSON.stringify(url)}: ${error.message}`);
    });
  }
}

/** Exact path `/health`, any method: 200 `OK`; anything else Go's default 404. */
function serveHealth(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?', 1)[0];
  if (path !== '/health') return notFound(req, res);
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('OK');
}

/**
 * /health of a process group: 200 `OK` once every worker answered the primary within
 * {@link HEALTH_TIMEOUT_MS}, else 503 naming the workers that did not (down, restarting or
 * stuck), so a liveness probe sees a worker the primary cannot reach.
 */
function serveGroupHealth(workers: WorkerGroup): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/health') return notFound(req, res);
    void workers.ask(HEALTH_TOPIC, HEALTH_TIMEOUT_MS).then((answers) => {
      const silent = answers.filter((answer) => 'error' in answer).map((answer) => `worker ${answer.worker}`);
      res.writeHead(silent.length === 0 ? 200 : 503, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(silent.length === 0 ? 'OK' : `${silent.join(', ')} not answering`);
    });
  };
}
