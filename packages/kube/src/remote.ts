/**
 * The worker's side of `-workers`: informers and manifests directories whose list+watch (or
 * fs.watch) runs in the primary's hub (hub.ts), mirrored here from its messages. A worker's
 * {@link InformerRegistry} keeps its own stores and reference counts exactly as in one process;
 * only the source of each informer's calls differs, so plugins see the same `replace`, `upsert`,
 * `remove` and `synced` in the same order. Each worker holds one stream per informer whatever
 * the number of its leases, and the primary holds one list+watch whatever the number of workers.
 */
import { channel as diagnosticsChannel } from 'node:diagnostics_channel';
import path from 'node:path';
import type { Logger } from '@foghorn/core';
import { hubHttpChannel } from './http-timing.js';
import { fromWire, isOurs } from './ipc.js';
import type { Envelope, FromHub, ToHub, WireWatchOptions } from './ipc.js';
import type { ManifestsDirectoryOptions } from './manifests.js';
import type { AcquireOptions, ConnectionInfo, InformerBackend, InformerSink } from './registry.js';
import type { ConnectionSource } from './connection.js';
import { resourceName } from './resources.js';
import type { KubeObject, Watch } from './types.js';

type Handler = (message: FromHub) => void;

/** Where the primary's HTTP requests are told, for the REST client metrics (http-timing.ts). */
const httpRequests = diagnosticsChannel(hubHttpChannel);

/** A send whose failure (the primary gone) is not an 'error' event: the worker is ending anyway. */
const ignoreSendError = (): void => {};

/**
 * The worker's end of the channel: routes the hub's messages to the stream that asked, by id.
 * It listens only while a stream is open, so a worker that uses no informer keeps the channel
 * as it found it (a 'message' listener keeps the channel referenced).
 */
class HubChannel {
  private nextId = 1;
  private readonly streams = new Map<number, Handler>();
  /** The `part`s of a long list, by stream, until the message they begin. */
  private readonly parts = new Map<number, KubeObject[]>();
  private readonly onMessage = (message: unknown): void => {
    if (!isOurs<FromHub>(message)) return;
    if (message.type === 'http') {
      httpRequests.publish(message.request);
      return;
    }
    const { id } = message;
    if (message.type === 'part') {
      const list = this.parts.get(id);
      if (list) for (const item of message.items) list.push(item);
      else this.parts.set(id, message.items as KubeObject[]);
      return;
    }
    const begun = this.parts.get(id);
    if (begun && 'items' in message) {
      this.parts.delete(id);
      for (const item of message.items) begun.push(item);
      this.streams.get(id)?.({ ...message, items: begun });
      return;
    }
    this.streams.get(id)?.(message);
  };

  open(handler: Handler): number {
    const id = this.nextId++;
    if (this.streams.size === 0) process.on('message', this.onMessage);
    this.streams.set(id, handler);
    return id;
  }

  close(id: number): void {
    this.parts.delete(id);
    if (!this.streams.delete(id)) return;
    if (this.streams.size === 0) process.off('message', this.onMessage);
  }

  send(message: ToHub): void {
    const envelope: Envelope<ToHub> = { foghorn: 'kube', ...message };
    process.send?.(envelope, undefined, undefined, ignoreSendError);
  }

  /** One request, one reply: the stream closes on the first message. */
  request<R extends FromHub>(message: (id: number) => ToHub): Promise<R> {
    return new Promise<R>((resolve) => {
      const id = this.open((reply) => {
        this.close(id);
        resolve(reply as R);
      });
      this.send(message(id));
    });
  }
}

let channel: HubChannel | undefined;

function hub(): HubChannel {
  return (channel ??= new HubChannel());
}

function wireOptions(options: Pick<AcquireOptions, keyof WireWatchOptions>): WireWatchOptions {
  const { backoffInitialMs, backoffMaxMs, watchTimeoutSeconds, watchdogMs, listPageSize, logIntervalMs, serviceAccountDir } = options;
  // The primary's environment is the worker's (forked with it): only an explicit one travels.
  const env = options.env === process.env ? undefined : options.env;
  return { backoffInitialMs, backoffMaxMs, watchTimeoutSeconds, watchdogMs, listPageSize, logIntervalMs, serviceAccountDir, env };
}

/** An informer stream from the hub; `stop` resolves once the primary dropped this worker's reference. */
class RemoteWatch implements Watch {
  synced = false;
  restarts = 0;
  private stopping: Promise<void> | undefined;
  private ended: (() => void) | undefined;

  constructor(
    private readonly channel: HubChannel,
    readonly id: number,
    private readonly name: string,
    private readonly log: Logger,
  ) {}

  /** The hub's messages for this stream, in order, into `sink`; a throwing sink is logged as the informer logs it. */
  deliver(message: FromHub, sink: InformerSink): void {
    try {
      this.call(message, sink);
    } catch (error) {
      this.log.error(`${this.name}: sink ${message.type} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private call(message: FromHub, sink: InformerSink): void {
    switch (message.type) {
      case 'list-part':
        sink.part(message.items, message.first);
        break;
      case 'replace':
        this.synced = true;
        sink.replace(message.items, message.absent === true);
        break;
      case 'upsert':
        sink.upsert(message.item);
        break;
      case 'remove':
        sink.remove(message.item);
        break;
      case 'restarted':
        this.restarts++;
        sink.restarted?.();
        break;
      case 'lead':
        sink.lead();
        break;
      case 'released':
        this.channel.close(this.id);
        this.ended?.();
        break;
    }
  }

  relist(): void {
    if (this.stopping === undefined) this.channel.send({ type: 'relist', id: this.id });
  }

  stop(): Promise<void> {
    this.stopping ??= new Promise<void>((resolve) => {
      this.ended = resolve;
      this.channel.send({ type: 'release', id: this.id });
    });
    return this.stopping;
  }
}

/** The backend of a worker's registry: every connection and list+watch is the hub's. */
export function remoteBackend(): InformerBackend {
  return {
    async connect(connection, options) {
      const reply = await hub().request<FromHub & { type: 'connected' }>((id) => ({ type: 'connect', id, connection, options: wireOptions(options) }));
      if (reply.error) throw fromWire(reply.error);
      return { server: reply.server!, source: reply.source as ConnectionSource };
    },
    watch(connection, _resolved: ConnectionInfo, resource, sink, options) {
      const channel = hub();
      return new Promise<Watch>((resolve, reject) => {
        let watch: RemoteWatch | undefined;
        const id = channel.open((message) => {
          if (message.type !== 'acquired') {
            watch!.deliver(message, sink);
            return;
          }
          if (message.error) {
            channel.close(id);
            reject(fromWire(message.error));
          } else {
            resolve(watch!);
          }
        });
        watch = new RemoteWatch(channel, id, `watch ${resourceName(resource)}`, options.logger);
        // The resource without its type-only field; `optional` travels (the first acquirer's decides).
        const { objectShape: _shape, ...spec } = resource;
        channel.send({ type: 'acquire', id, connection, resource: spec, plugin: options.plugin ?? 'kube', options: wireOptions(options) });
      });
    },
  };
}

/** What plugins use of a manifests directory, local ({@link ManifestsDirectory}) or the hub's. */
export interface Manifests {
  readonly dir: string;
  /** The first scan was applied. */
  readonly synced: boolean;
  /** Scans applied (in a worker: scans that changed something, and the first). */
  readonly scans: number;
  /** Watchers that failed and were set up again (in a worker: counted by the one told of files, 0 elsewhere). */
  readonly watchRestarts: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Reads the directory now and applies what changed. */
  scan(): Promise<void>;
}

/**
 * A manifests directory read and watched by the primary's hub. Every worker gets each scan's
 * complete list; `onFile`, `onRemoved` and `onUnreadable` reach one worker per directory and
 * plugin (so what they log and count is logged and counted once over all workers), and the
 * primary logs an unreadable file once.
 */
export class RemoteManifestsDirectory implements Manifests {
  synced = false;
  scans = 0;
  watchRestarts = 0;
  private id = 0;
  private waiting: { resolve(): void; reject(error: Error): void } | undefined;
  private readonly scansPending: (() => void)[] = [];
  private closed: (() => void) | undefined;

  constructor(
    readonly dir: string,
    private readonly apply: (objects: readonly KubeObject[]) => void,
    private readonly log: Logger,
    private readonly options: ManifestsDirectoryOptions = {},
  ) {}

  start(): Promise<void> {
    const channel = hub();
    const { onFile, onRemoved, onUnreadable, plugin, debounceMs } = this.options;
    return new Promise<void>((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.id = channel.open((message) => this.receive(message));
      const report = onFile !== undefined || onRemoved !== undefined || onUnreadable !== undefined;
      channel.send({ type: 'manifests-open', id: this.id, dir: path.resolve(this.dir), plugin: plugin ?? 'kube', debounceMs: debounceMs ?? null, report });
    });
  }

  stop(): Promise<void> {
    if (this.id === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.closed = resolve;
      hub().send({ type: 'manifests-close', id: this.id });
    });
  }

  scan(): Promise<void> {
    if (this.id === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.scansPending.push(resolve);
      hub().send({ type: 'manifests-scan', id: this.id });
    });
  }

  /** A throwing `apply` or callback is logged as a local directory's failed scan is, not thrown into the channel. */
  private receive(message: FromHub): void {
    try {
      this.call(message);
    } catch (error) {
      this.log.warning(`manifests: scanning '${this.dir}': ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private call(message: FromHub): void {
    switch (message.type) {
      case 'manifests-apply':
        this.watchRestarts = message.watchRestarts;
        this.apply(message.items);
        this.scans++;
        break;
      case 'manifests-file':
        this.options.onFile?.(message.path, message.items);
        break;
      case 'manifests-removed':
        this.options.onRemoved?.(message.path);
        break;
      case 'manifests-unreadable':
        this.options.onUnreadable?.(message.path);
        break;
      case 'manifests-started':
        if (message.error) {
          hub().close(this.id);
          this.id = 0;
          this.waiting?.reject(fromWire(message.error));
        } else {
          this.synced = true;
          this.waiting?.resolve();
        }
        this.waiting = undefined;
        break;
      case 'manifests-scanned':
        this.scansPending.shift()?.();
        break;
      case 'manifests-closed':
        hub().close(this.id);
        this.id = 0;
        for (const done of this.scansPending.splice(0)) done();
        // Stopped while starting: start ends too, as a local directory's does.
        this.waiting?.resolve();
        this.waiting = undefined;
        this.closed?.();
        break;
    }
  }
}

