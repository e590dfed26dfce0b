/**
 * Sends finished spans in batches, off the query path, as zipkin-go's HTTP reporter does for
 * CoreDNS: a batch goes out when it holds `batchSize` spans or `batchIntervalMs` after its
 * first one, one request at a time; spans waiting past `maxBacklog` are dropped oldest first, so
 * an unreachable collector costs memory up to a bound and never a query's time.
 */
import { Buffer } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from '@foghorn/core';
import { refreshClock } from './spans.js';
import type { SpanRecord, SpanSink } from './spans.js';

/** zipkin-go's defaults (reporter/http). */
export const DEFAULT_BATCH_SIZE = 100;
export const DEFAULT_BATCH_INTERVAL_MS = 1_000;
export const DEFAULT_MAX_BACKLOG = 1_000;
/** How long a send may take before it is abandoned (zipkin-go: 5 s). */
export const REQUEST_TIMEOUT_MS = 5_000;

export interface ReporterOptions {
  /** The collector's URL. */
  readonly url: URL;
  readonly batchSize: number;
  readonly batchIntervalMs: number;
  readonly maxBacklog: number;
  /** Turns a batch into the request body. */
  readonly encode: (spans: readonly SpanRecord[]) => string;
  readonly log: Logger;
}

export class Reporter implements SpanSink {
  private pending: SpanRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private readonly agent: http.Agent;
  private running = false;

  constructor(private readonly options: ReporterOptions) {
    this.agent = new (options.url.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 1 });
  }

  add(span: SpanRecord): void {
    if (!this.running) return;
    const pending = this.pending;
    pending.push(span);
    if (pending.length > this.options.maxBacklog) {
      const dropped = pending.length - this.options.maxBacklog;
      pending.splice(0, dropped);
      this.options.log.warning(`backlog is full: dropped ${dropped} span${dropped === 1 ? '' : 's'}`);
    }
    if (pending.length >= this.options.batchSize) this.send();
    else if (this.timer === undefined) {
      // Unreferenced: spans never keep the process alive (close sends what waits).
      this.timer = setTimeout(() => this.send(), this.options.batchIntervalMs).unref();
    }
  }

  start(): void {
    this.running = true;
  }

  /** Sends what waits and stops taking spans. */
  async close(): Promise<void> {
    this.send();
    this.running = false;
    while (this.sending !== undefined) await this.sending;
    this.agent.destroy();
  }

  /** Starts a request with up to a batch of waiting spans, unless one is in flight (its end sends the next). */
  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.sending !== undefined || this.pending.length === 0) return;
    refreshClock();
    const batch = this.pending.splice(0, this.options.batchSize);
    this.sending = this.post(this.options.encode(batch)).then(() => {
      this.sending = undefined;
      if (this.pending.length >= this.options.batchSize || (!this.running && this.pending.length > 0)) this.send();
      else if (this.pending.length > 0 && this.timer === undefined) this.timer = setTimeout(() => this.send(), this.options.batchIntervalMs).unref();
    });
  }

  private post(body: string): Promise<void> {
    const { url, log } = this.options;
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<void>((resolve) => {
      const request = client.request(
        url,
        { method: 'POST', agent: this.agent, timeout: REQUEST_TIMEOUT_MS, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
        (response) => {
          response.resume();
          response.on('end', resolve);
          response.on('error', () => resolve());
          // zipkin-go's words for a collector that refused the batch.
          if ((response.statusCode ?? 0) < 200 || (response.statusCode ?? 0) > 299) log.warning(`failed the request with status code ${response.statusCode}`);
        },
      );
      request.on('timeout', () => request.destroy(new Error('request timed out')));
      request.on('error', (error) => {
        log.warning(`failed to send the request: Post "${url.href}": ${error.message}`);
        resolve();
      });
      request.end(body);
    });
  }
}
