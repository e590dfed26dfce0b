/**
 * The primary of `foghorn -workers N` (docs/architecture.md, "Workers"): it serves no DNS. It
 * forks N workers running the same CLI (worker.ts) that share one set of ports through Node's
 * `cluster`, hands them the Corefile, writes their output in whole lines (lines.ts), relays
 * signals as orders, answers their questions about each other (worker-protocol.ts), and restarts
 * a worker that dies, with a backoff. A worker's `Controller.fatal` ends everything, exit status 1.
 *
 *   starting ──every worker up──▶ serving ──SIGTERM/SIGINT──▶ stopping ──all closed──▶ exit
 *      │ a worker failed               │ a worker died: restart after a backoff
 *      ▼                               │ a worker's fatal ──▶ exit 1
 *   print its error, exit 1
 */
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import type { Worker } from 'node:cluster';
import type { CorefileSource, Logger, WorkerAnswer } from '@foghorn/core';
import type { ListenerInfo } from '@foghorn/core/server';
import { startInformerHub } from '@foghorn/kube';
import type { InformerHub } from '@foghorn/kube';
import { LineJoiner, SharedOutput } from './lines.js';
import { withV8Flags } from './v8-flags.js';
import { GROUP_ENV, isOurs, WORKER_ENV } from './worker-protocol.js';
import type { ToPrimary, ToWorker } from './worker-protocol.js';

/** The first restart of a crashed worker waits this long; each quick crash after doubles it. */
export const RESTART_BASE_MS = 100;
/** The longest wait before a restart. */
export const RESTART_MAX_MS = 10_000;
/** A worker that served this long before dying is restarted at the base delay again. */
export const RESTART_RESET_MS = 30_000;
/** How long after every worker is up their identical lines are still written once (see start). */
const COLLAPSE_GRACE_MS = 2_000;

/** What the CLI hands the primary. */
export interface PrimaryOptions {
  readonly workers: number;
  readonly logger: Logger;
  /** Reads the Corefile (at start and for each reload), as the single process does. */
  readonly load: () => CorefileSource;
  /** Prints the listeners and the banner once every worker is up. */
  readonly announce: (addresses: ListenerInfo[]) => void;
  readonly writePidfile: () => void;
  readonly removePidfile: () => void;
}

/** One worker position, 1 to N; the process in it changes when it is restarted. */
interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  pid: number;
  up: boolean;
  /** When the current process came up; how long it served decides the next backoff. */
  upSince: number;
  /** Consecutive quick deaths. */
  crashes: number;
  /** The start-up error it reported, printed if the primary gives up. */
  failure: string | undefined;
  restartTimer: NodeJS.Timeout | undefined;
  /** Questions and reloads awaiting this worker's reply, by id. */
  readonly waiting: Map<number, (message: ToPrimary | undefined) => void>;
  /** The current process's last answer to each topic it was asked. */
  answered: Map<string, unknown>;
  /** The last answers of the processes before it in this position, by topic ({@link WorkerGroup.predecessor}). */
  predecessor: Record<string, unknown>;
}

type Phase = 'starting' | 'serving' | 'stopping';

export class Primary {
  private readonly slots: Slot[];
  private phase: Phase = 'starting';
  /** The Corefile the workers serve: the one that started, or the last one a worker reloaded. */
  private corefile: CorefileSource;
  private nextId = 1;
  private rolling: Promise<Error | undefined> | undefined;
  private exitCode = 0;
  private readonly stdout = new SharedOutput(process.stdout);
  private readonly stderr = new SharedOutput(process.stderr);
  /**
   * One set of Kubernetes watches and manifests directories for every worker, fed to them over
   * IPC (channel `kube`), so the API server sees the same watches whatever N is. It starts
   * nothing until a worker asks.
   */
  private readonly hub: InformerHub;
  private readonly log: Logger;
  /** The group's {@link WorkerGroup.id}, the same for every worker forked, restarts included. */
  private readonly groupId = randomBytes(16).toString('hex');
  /** Resolves {@link start} once every worker is up. */
  private whenAllUp: (() => void) | undefined;
  /** Worker 1's listeners, for the zone lines. */
  private upAddresses: ListenerInfo[] = [];
  /** Ends the window in which the workers' identical start-up lines are written once (see start). */
  private endCollapse: () => void = () => undefined;

  constructor(
    private readonly options: PrimaryOptions,
    corefile: CorefileSource,
  ) {
    this.corefile = corefile;
    this.log = options.logger;
    this.hub = startInformerHub({ logger: this.log });
    this.slots = Array.from({ length: options.workers }, (_, i) => ({
      index: i + 1,
      worker: undefined,
      pid: 0,
      up: false,
      upSince: 0,
      crashes: 0,
      failure: undefined,
      restartTimer: undefined,
      waiting: new Map(),
      answered: new Map(),
      predecessor: {},
    }));
  }

  /** Forks every worker; resolves once all serve (or ends the process when one cannot). */
  async start(): Promise<void> {
    // Workers are silent (their stdout and stderr are pipes read here) and run this same CLI,
    // with the V8 flags a serving process wants (v8-flags.ts) whether or not the primary had them.
    cluster.setupPrimary({ silent: true, execArgv: withV8Flags(process.execArgv) });
    // TCP: the primary accepts and deals connections round-robin (Node's default on Linux, made
    // explicit). A listening socket shared by the workers leaves the choice to the kernel, which
    // is lopsided and measured slower (docs/architecture.md, "Workers"). UDP is always shared.
    if (process.env['NODE_CLUSTER_SCHED_POLICY'] === undefined) cluster.schedulingPolicy = cluster.SCHED_RR;
    // The workers' start-up lines (plugins' notices and warnings) once, as one process prints
    // them. The window outlasts the last 'up' a little: a worker's lines come through its pipe,
    // the 'up' through the IPC channel, and either may be read first.
    // A reload ends it at once: each worker's reload lines are news.
    const collapsed = [this.stdout.collapse(), this.stderr.collapse()];
    this.endCollapse = () => collapsed.forEach((end) => end());
    await new Promise<void>((resolve) => {
      this.whenAllUp = resolve;
      for (const slot of this.slots) this.fork(slot);
    });
    setTimeout(this.endCollapse, COLLAPSE_GRACE_MS).unref();
    this.phase = 'serving';
    // Before the banner: whoever waits for it may signal at once.
    this.installSignals();
    this.options.writePidfile();
    this.options.announce(this.upAddresses);
  }

  private fork(slot: Slot): void {
    slot.restartTimer = undefined;
    slot.up = false;
    slot.failure = undefined;
    const env: Record<string, string> = { [WORKER_ENV]: String(slot.index), [GROUP_ENV]: this.groupId };
    env['FOGHORN_INFORMER_HUB'] = '1';
    const worker = cluster.fork(env);
    slot.worker = worker;
    slot.pid = worker.process.pid ?? 0;
    const child = worker.process;
    new LineJoiner(child.stdout!, this.stdout);
    new LineJoiner(child.stderr!, this.stderr);
    worker.on('message', (message: unknown) => {
      if (isOurs<ToPrimary>(message)) this.receive(slot, worker, message);
    });
    // Not a crash of the primary: an IPC write to a worker that just died fails, and 'close' follows.
    worker.on('error', () => undefined);
    this.hub.attach(worker);
    // 'close', not 'exit': the worker's last lines and IPC messages (its fatal) are read by then.
    child.once('close', (code, signal) => this.closed(slot, worker, code, signal));
  }

  private send(worker: Worker | undefined, message: ToWorker): void {
    if (worker?.isConnected()) worker.send(message);
  }

  private receive(slot: Slot, worker: Worker, message: ToPrimary): void {
    switch (message.foghorn) {
      case 'hello':
        this.send(worker, { foghorn: 'start', corefile: this.corefile, predecessor: slot.predecessor });
        return;
      case 'up':
        this.hub.started(worker);
        this.workerUp(slot, message.addresses);
        return;
      case 'failed':
        // Logged with the restart it causes (closed), one line per restart however long the loop.
        slot.failure = message.message;
        return;
      case 'fatal':
        this.fatal();
        return;
      case 'ask':
        void this.gather(message.topic, message.timeoutMs).then((answers) => this.send(worker, { foghorn: 'answers', id: message.id, answers }));
        return;
      case 'reload-all':
        void this.reloadAll().then((error) => this.send(worker, { foghorn: 'reload-all-done', id: message.id, ...(error ? { error: error.message } : {}) }));
        return;
      case 'reply':
      case 'reloaded': {
        const waiter = slot.waiting.get(message.id);
        slot.waiting.delete(message.id);
        waiter?.(message);
        return;
      }
    }
  }

  private workerUp(slot: Slot, addresses: ListenerInfo[]): void {
    slot.up = true;
    slot.upSince = Date.now();
    if (this.phase === 'starting') {
      if (slot.index === 1) this.upAddresses = addresses;
      if (this.slots.every((s) => s.up)) this.whenAllUp?.();
    } else if (this.phase === 'serving') {
      this.log.info(`worker ${slot.index} (pid ${slot.pid}) restarted`);
    }
  }

  private closed(slot: Slot, worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    slot.up = false;
    for (const waiter of slot.waiting.values()) waiter(undefined);
    slot.waiting.clear();
    if (this.phase === 'stopping') {
      if (code !== null && code > this.exitCode) this.exitCode = code;
      return this.exitWhenAllClosed();
    }
    if (this.phase === 'starting') {
      // As the single process: the start-up error, bare, on stderr, and exit status 1.
      process.stderr.write(`${slot.failure ?? `worker ${slot.index} (pid ${slot.pid}) ${howItEnded(code, signal)} before serving`}\n`);
      return this.end(1, 'SIGKILL');
    }
    // The next process inherits these answers; a topic this one was never asked keeps what it inherited.
    for (const [topic, value] of slot.answered) slot.predecessor[topic] = value;
    slot.answered = new Map();
    const served = slot.upSince > 0 && Date.now() - slot.upSince >= RESTART_RESET_MS;
    slot.crashes = served ? 1 : slot.crashes + 1;
    slot.upSince = 0;
    const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (slot.crashes - 1));
    const how = slot.failure !== undefined ? `failed to start: ${slot.failure}` : howItEnded(code, signal);
    this.log.error(`worker ${slot.index} (pid ${slot.pid}) ${how}: restarting in ${delay}ms`);
    slot.restartTimer = setTimeout(() => this.fork(slot), delay);
  }

  /** CoreDNS's `log.Fatal`: the [FATAL] line is out, no hook runs, exit status 1. */
  private fatal(): void {
    if (this.phase === 'stopping' && this.exitCode === 1) return;
    this.end(1, 'SIGKILL');
  }

  /** Ends every worker with `signal` (or the stop order), then exits with `code`. */
  private end(code: number, signal: NodeJS.Signals): void {
    this.phase = 'stopping';
    this.exitCode = code;
    for (const slot of this.slots) {
      clearTimeout(slot.restartTimer);
      slot.worker?.process.kill(signal);
    }
    this.exitWhenAllClosed();
  }

  /** Orders every worker to stop as the single process would on this signal, then exits. */
  private stop(graceful: boolean): void {
    this.phase = 'stopping';
    for (const slot of this.slots) {
      clearTimeout(slot.restartTimer);
      if (slot.up) this.send(slot.worker, { foghorn: 'stop', graceful });
      else slot.worker?.process.kill('SIGKILL');
    }
    this.exitWhenAllClosed();
  }

  private exitWhenAllClosed(): void {
    if (this.slots.some((slot) => slot.worker !== undefined)) return;
    void this.hub.close().finally(() => {
      // Written whole lines only; exit once they are out.
      process.stdout.write('', () => process.exit(this.exitCode));
    });
  }

  /** Asks `topic` of every worker for {@link WorkerGroup.ask}; a worker down or late gets an error entry. */
  private gather(topic: string, timeoutMs: number): Promise<WorkerAnswer[]> {
    return Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<WorkerAnswer>((resolve) => {
            if (!slot.up) return resolve(downAnswer(slot, topic));
            const id = this.nextId++;
            const timer = setTimeout(() => {
              slot.waiting.delete(id);
              resolve({ worker: slot.index, error: `worker ${slot.index} did not answer within ${timeoutMs}ms` });
            }, timeoutMs);
            slot.waiting.set(id, (message) => {
              clearTimeout(timer);
              // It died before answering: down, as if it had been asked a moment later.
              if (message?.foghorn !== 'reply') resolve(downAnswer(slot, topic));
              else if (message.error !== undefined) resolve({ worker: slot.index, error: message.error });
              else {
                slot.answered.set(topic, message.value);
                resolve({ worker: slot.index, value: message.value });
              }
            });
            this.send(slot.worker, { foghorn: 'question', id, topic });
          }),
      ),
    );
  }

  /**
   * Reloads worker 1, then 2, …: each keeps its sockets, and the others serve meanwhile, so no
   * query is lost. A worker that fails stops the round (the Corefile is the same for all); the
   * error is the one the worker logged. Requests during a round join it.
   */
  reloadAll(): Promise<Error | undefined> {
    this.endCollapse();
    this.rolling ??= this.roll().finally(() => (this.rolling = undefined));
    return this.rolling;
  }

  private async roll(): Promise<Error | undefined> {
    let corefile: CorefileSource;
    try {
      corefile = this.options.load();
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.log.error(`Restart failed: ${failure.message}`);
      return failure;
    }
    for (const slot of this.slots) {
      if (!slot.up || this.phase !== 'serving') continue;
      const id = this.nextId++;
      const reply = await new Promise<ToPrimary | undefined>((resolve) => {
        slot.waiting.set(id, resolve);
        this.send(slot.worker, { foghorn: 'reload', id, corefile });
      });
      if (reply?.foghorn !== 'reloaded') continue;
      if (reply.error !== undefined) return new Error(reply.error);
      // A worker restarted from now on starts with what the others serve.
      this.corefile = corefile;
    }
    return undefined;
  }

  /** The single process's signals (main.ts), acted on for every worker. */
  private installSignals(): void {
    const log = this.log;
    let interrupted = false;
    process.on('SIGINT', () => {
      if (interrupted) {
        log.info('SIGINT: Force quit');
        for (const slot of this.slots) slot.worker?.process.kill('SIGKILL');
        process.exit(2);
      }
      interrupted = true;
      log.info('SIGINT: Shutting down');
      this.options.removePidfile();
      // CoreDNS runs the hooks and exits without gracefully stopping the DNS servers.
      this.stop(false);
    });
    process.on('SIGTERM', () => {
      if (this.phase === 'stopping') return;
      log.info('SIGTERM: Shutting down servers then terminating');
      this.options.removePidfile();
      this.stop(true);
    });
    process.on('SIGQUIT', () => {
      log.info('SIGQUIT: Quitting process immediately');
      this.options.removePidfile();
      this.end(0, 'SIGKILL');
    });
    process.on('SIGUSR1', () => {
      log.info('SIGUSR1: Reloading');
      void this.reloadAll().then((error) => {
        if (error) log.error(`SIGUSR1: ${error.message}`);
      });
    });
    process.on('SIGHUP', () => undefined);
  }
}

/**
 * The answer for a worker that is not running (being restarted): said apart from a slow one, with
 * what its last process answered to `topic` (moved to `predecessor` once its death is handled).
 */
function downAnswer(slot: Slot, topic: string): WorkerAnswer {
  const last = slot.answered.has(topic) ? slot.answered.get(topic) : slot.predecessor[topic];
  return { worker: slot.index, error: `worker ${slot.index} is not running`, down: true, ...(last !== undefined ? { last } : {}) };
}

/** `exited with code 3`, `was killed by signal SIGKILL`. */
function howItEnded(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `was killed by signal ${signal}` : `exited with code ${code ?? 'unknown'}`;
}
