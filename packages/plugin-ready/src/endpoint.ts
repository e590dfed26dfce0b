/**
 * The /ready HTTP endpoint: 200 `OK` when every plugin that reports readiness is ready, else 503
 * with the sorted, comma-joined names of those that are not (CoreDNS `plugin/ready/ready.go`).
 * Listening, sharing and closing are core's {@link HttpEndpoint}.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpEndpoint, notFound } from '@foghorn/core';
import type { Logger, WorkerGroup } from '@foghorn/core';
import type { ReadinessList } from './readiness.js';

/** Options for {@link ReadyEndpoint}. */
export interface ReadyEndpointOptions {
  /** `host:port` as written in the Corefile (`:8181`, `127.0.0.1:0`). */
  readonly address: string;
  readonly list: ReadinessList;
  /** The `plugin/ready: ` logger. */
  readonly log: Logger;
  /** Under `foghorn -workers N`: /ready is OK only when every worker is ready. */
  readonly workers?: WorkerGroup | undefined;
}

/** The `WorkerGroup` topic a worker answers with the plugins it has not seen ready. */
export const READY_TOPIC = 'ready';
/** How long /ready waits for every worker: below the kubelet's default probe timeout of 1 s. */
export const READY_TIMEOUT_MS = 800;

export class ReadyEndpoint extends HttpEndpoint {
  constructor(private readonly ready: ReadyEndpointOptions) {
    super({
      address: ready.address,
      handler: (req, res) => void this.serve(req, res),
      onError: (error) => ready.log.error(`ready handler on ${ready.address}: ${error.message}`),
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/ready') return notFound(req, res);
    // Closing: a request still arriving on an open connection gets 503.
    if (!this.isOpen) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('Shutting down');
      return;
    }
    const notReady = this.ready.workers ? await this.groupNotReady(this.ready.workers) : this.ready.list.notReady();
    if (notReady.length === 0) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('OK');
      return;
    }
    const names = notReady.join(',');
    this.ready.log.info(`Plugins not ready: ${JSON.stringify(names)}`);
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(names);
  }

  /**
   * Every worker's plugins not ready, one entry per name, sorted; a running worker that did not
   * answer (stuck) is listed as `worker N`. A worker the primary is restarting is left out while
   * another one serves: the others answer its share of the queries meanwhile, and a pod taken out
   * of its Service for a restart of under a second would lose more than it saves.
   */
  private async groupNotReady(workers: WorkerGroup): Promise<string[]> {
    const names = new Set<string>();
    const answers = await workers.ask(READY_TOPIC, READY_TIMEOUT_MS);
    const serving = answers.some((answer) => !('error' in answer));
    for (const answer of answers) {
      if (!('error' in answer)) for (const name of answer.value as string[]) names.add(name);
      else if (!answer.down || !serving) names.add(`worker ${answer.worker}`);
    }
    return [...names].sort();
  }
}
