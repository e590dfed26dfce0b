/**
 * One worker of `foghorn -workers N`: the CLI entry run again by the primary (primary.ts) through
 * `cluster.fork`, with FOGHORN_WORKER set to its number. It serves the Corefile the primary hands
 * it on sockets shared through the primary, logs to a pipe the primary reads line by line, and
 * takes its orders (reload, stop) over IPC (worker-protocol.ts); signals are the primary's.
 */
import type { CorefileSource, Logger, WorkerAnswer, WorkerGroup } from '@foghorn/core';
import { Server } from '@foghorn/core/server';
import type { DirectiveEntry } from '@foghorn/core/server';
import { isOurs } from './worker-protocol.js';
import type { ToPrimary, ToWorker } from './worker-protocol.js';
import { errorMessage } from '@foghorn/core';

/** Replies awaited from the primary, by request id. */
type Waiter = (message: ToWorker) => void;

/** How much longer than the primary's own deadline a worker waits for the answers. */
const ASK_MARGIN_MS = 1_000;

/** The IPC link to the primary: this worker's {@link WorkerGroup}. */
export class WorkerLink implements WorkerGroup {
  private readonly responders = new Map<string, () => unknown>();
  private readonly waiters = new Map<number, Waiter>();
  private nextId = 1;
  private started: ((corefile: CorefileSource) => void) | undefined;
  /** The Corefile to serve: the primary's, replaced by each reload it orders. */
  corefile: CorefileSource | undefined;
  /** The last answers of the process this one replaces, by topic (empty on a first start). */
  private predecessorAnswers: Readonly<Record<string, unknown>> = {};
  /** Called for the primary's `reload` and `stop` orders (set by {@link runWorker}). */
  onReload: (corefile: CorefileSource) => Promise<string | undefined> = () => Promise.resolve('not serving yet');
  onStop: (graceful: boolean) => void = () => process.exit(0);

  constructor(
    readonly worker: number,
    readonly size: number,
    readonly id: string,
  ) {
    process.on('message', (message) => {
      if (isOurs<ToWorker>(message)) this.receive(message);
    });
  }

  /** Asks the primary for the Corefile and resolves with it. */
  hello(): Promise<CorefileSource> {
    return new Promise((resolve) => {
      this.started = resolve;
      this.send({ foghorn: 'hello' });
    });
  }

  answer(topic: string, respond: () => unknown): void {
    this.responders.set(topic, respond);
  }

  ask(topic: string, timeoutMs: number): Promise<WorkerAnswer[]> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      // The primary answers for every worker within timeoutMs; this only guards against a
      // primary that is gone (then this worker is about to end anyway).
      const timer = setTimeout(() => {
        this.waiters.delete(id);
        resolve(Array.from({ length: this.size }, (_, i) => ({ worker: i + 1, error: 'no answer from the primary' })));
      }, timeoutMs + ASK_MARGIN_MS);
      this.waiters.set(id, (message) => {
        clearTimeout(timer);
        resolve(message.foghorn === 'answers' ? message.answers : []);
      });
      this.send({ foghorn: 'ask', id, topic, timeoutMs });
    });
  }

  predecessor(topic: string): unknown {
    return this.predecessorAnswers[topic];
  }

  reload(): Promise<Error | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiters.set(id, (message) => resolve(message.foghorn === 'reload-all-done' && message.error !== undefined ? new Error(message.error) : undefined));
      this.send({ foghorn: 'reload-all', id });
    });
  }

  send(message: ToPrimary, then?: () => void): void {
    process.send!(message, undefined, {}, () => then?.());
  }

  private receive(message: ToWorker): void {
    switch (message.foghorn) {
      case 'start':
        this.corefile = message.corefile;
        this.predecessorAnswers = message.predecessor;
        this.started?.(message.corefile);
        this.started = undefined;
        return;
      case 'question':
        void this.respond(message.id, message.topic);
        return;
      case 'answers':
      case 'reload-all-done': {
        const waiter = this.waiters.get(message.id);
        this.waiters.delete(message.id);
        waiter?.(message);
        return;
      }
      case 'reload':
        void this.onReload(message.corefile).then((error) => this.send({ foghorn: 'reloaded', id: message.id, ...(error !== undefined ? { error } : {}) }));
        return;
      case 'stop':
        this.onStop(message.graceful);
        return;
    }
  }

  private async respond(id: number, topic: string): Promise<void> {
    const respond = this.responders.get(topic);
    if (!respond) return this.send({ foghorn: 'reply', id, error: `nothing answers ${topic} in worker ${this.worker}` });
    try {
      this.send({ foghorn: 'reply', id, value: await respond() });
    } catch (error) {
      this.send({ foghorn: 'reply', id, error: errorMessage(error) });
    }
  }
}

/** What {@link runWorker} needs from the CLI. */
export interface WorkerOptions {
  readonly worker: number;
  readonly size: number;
  /** The group's id ({@link WorkerGroup.id}). */
  readonly group: string;
  readonly directives: readonly DirectiveEntry[];
  readonly dnsPort: number;
  readonly logger: Logger;
  readonly defaultCorefile: string;
}

/** Serves as worker `options.worker` until the primary says stop (or goes away). */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const link = new WorkerLink(options.worker, options.size, options.group);
  // The primary relays these signals as orders (a terminal's Ctrl-C reaches the whole process
  // group); SIGTERM sent to this worker alone stops it gracefully, and the primary restarts it.
  for (const signal of ['SIGINT', 'SIGQUIT', 'SIGHUP', 'SIGUSR1'] as const) process.on(signal, () => undefined);
  const corefile = await link.hello();
  let server: Server | undefined;
  let stopping = false;
  const stop = (graceful: boolean): void => {
    if (stopping) return;
    stopping = true;
    if (!server) process.exit(0);
    // The exit statuses of the single process's SIGTERM (main.ts).
    void server.stop({ graceful }).then(
      (errors) => process.exit(errors.length > 0 ? 4 : 0),
      () => process.exit(3),
    );
  };
  link.onStop = stop;
  process.on('SIGTERM', () => stop(true));
  // The primary is gone (killed with SIGKILL, so it could not stop us): the IPC channel closed.
  // Node's cluster ends a worker then too (lib/internal/cluster/child.js); said here so that no
  // worker outlives it holding the ports, whatever cluster does.
  process.once('disconnect', () => process.exit(0));
  server = new Server({
    directives: options.directives,
    dnsPort: options.dnsPort,
    logger: options.logger,
    loadCorefile: () => link.corefile ?? corefile,
    defaultCorefile: options.defaultCorefile,
    workers: link,
    // The [FATAL] line is written already; the primary ends every worker and exits with status 1.
    onFatal: (message) => link.send({ foghorn: 'fatal', message }, () => process.exit(1)),
  });
  try {
    await server.start();
  } catch (error) {
    link.send({ foghorn: 'failed', message: errorMessage(error) }, () => process.exit(1));
    return;
  }
  const running = server;
  link.onReload = async (next) => {
    const previous = link.corefile;
    link.corefile = next;
    if (await running.reload()) return undefined;
    link.corefile = previous;
    return running.lastReloadError?.message ?? 'reload failed';
  };
  link.send({ foghorn: 'up', addresses: running.addresses });
}
