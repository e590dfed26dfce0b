/**
 * The messages between a `-workers` primary's informer hub (hub.ts) and its workers (remote.ts),
 * over the IPC channel Node gives a forked process (`cluster.fork`, `child_process.fork`). Other
 * users share that channel, so every message carries `foghorn: 'kube'` and anything else is
 * ignored. Each stream (a connection lookup, an informer, a manifests directory) has an `id` the
 * worker chose; the channel keeps order, so a stream's events arrive as the primary sent them.
 * Payloads are plain JSON (the channel's default serialization): objects as the API server sent
 * them, errors as name and message.
 */
import { KubeConnectionError } from './types.js';
import type { TimedRequest } from './http-timing.js';
import type { KubeConnection, KubeObject, ResourceSpec } from './types.js';
import type { StartWatchOptions } from './watch.js';

/** A worker's environment sets this to `1` to use its primary's hub (the `-workers` supervisor does). */
export const hubEnvironmentVariable = 'FOGHORN_INFORMER_HUB';

/** True in a process whose informers and manifests come from its primary's hub. */
export function isHubWorker(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[hubEnvironmentVariable] === '1' && typeof process.send === 'function';
}

/** An error as it crosses the channel. */
export interface WireError {
  readonly name: string;
  readonly message: string;
}

export function toWire(error: unknown): WireError {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}

/** The error the worker rethrows: the same class for what setup reports (KubeConnectionError, a bad option). */
export function fromWire(error: WireError): Error {
  switch (error.name) {
    case 'KubeConnectionError':
      return new KubeConnectionError(error.message);
    case 'RangeError':
      return new RangeError(error.message);
    case 'TypeError':
      return new TypeError(error.message);
    default: {
      const out = new Error(error.message);
      out.name = error.name;
      return out;
    }
  }
}

/** Watch tuning as it crosses the channel: StartWatchOptions without the loggers (plain data). */
export type WireWatchOptions = Omit<StartWatchOptions, 'logger' | 'log'>;

/** Worker to primary. */
export type ToHub =
  | { readonly type: 'connect'; readonly id: number; readonly connection: KubeConnection; readonly options: WireWatchOptions }
  | { readonly type: 'acquire'; readonly id: number; readonly connection: KubeConnection; readonly resource: ResourceSpec; readonly plugin: string; readonly options: WireWatchOptions }
  | { readonly type: 'release'; readonly id: number }
  /** List again (`Watch.relist`): a subscriber of this worker joined after the informer listed. */
  | { readonly type: 'relist'; readonly id: number }
  | { readonly type: 'manifests-open'; readonly id: number; readonly dir: string; readonly plugin: string; readonly debounceMs: number | null; readonly report: boolean }
  | { readonly type: 'manifests-scan'; readonly id: number }
  | { readonly type: 'manifests-close'; readonly id: number };

/** Primary to worker. */
export type FromHub =
  /** The first items of the next message of this stream that carries `items` (see {@link listChunk}). */
  | { readonly type: 'part'; readonly id: number; readonly items: readonly KubeObject[] }
  | { readonly type: 'connected'; readonly id: number; readonly server?: string; readonly source?: string; readonly error?: WireError }
  | { readonly type: 'acquired'; readonly id: number; readonly error?: WireError }
  | { readonly type: 'replace'; readonly id: number; readonly items: readonly KubeObject[]; readonly absent?: true }
  /** A page of a list under way (`ObjectSink.part`); `replace` carries its last page. */
  | { readonly type: 'list-part'; readonly id: number; readonly items: readonly KubeObject[]; readonly first: boolean }
  | { readonly type: 'upsert'; readonly id: number; readonly item: KubeObject }
  | { readonly type: 'remove'; readonly id: number; readonly item: KubeObject }
  | { readonly type: 'restarted'; readonly id: number }
  /** This worker now leads the informer's reports (see AcquireOptions.reporter). */
  | { readonly type: 'lead'; readonly id: number }
  | { readonly type: 'released'; readonly id: number }
  /** A scan's complete list (every worker of the directory). */
  | { readonly type: 'manifests-apply'; readonly id: number; readonly items: readonly KubeObject[]; readonly watchRestarts: number }
  /** What `onFile`, `onRemoved` and `onUnreadable` report: to one worker per directory only. */
  | { readonly type: 'manifests-file'; readonly id: number; readonly path: string; readonly items: readonly KubeObject[] }
  | { readonly type: 'manifests-removed'; readonly id: number; readonly path: string }
  | { readonly type: 'manifests-unreadable'; readonly id: number; readonly path: string }
  | { readonly type: 'manifests-started'; readonly id: number; readonly error?: WireError }
  | { readonly type: 'manifests-scanned'; readonly id: number }
  | { readonly type: 'manifests-closed'; readonly id: number }
  /** A request of the primary's informers, timed there, to one worker (http-timing.ts); `id` is 0, no stream's. */
  | { readonly type: 'http'; readonly id: number; readonly request: TimedRequest };

/**
 * Items per message: a longer list (a relist, a scan, a big file) goes as `part` messages and
 * then its own. Each message is serialized and parsed in one piece, blocking its process's event
 * loop meanwhile; chunks as large as the informer's list pages (500) keep a worker answering
 * queries between them, as a process that lists for itself does between pages.
 */
export const listChunk = 500;

/** What goes on the channel: a message of ours inside the envelope. */
export type Envelope<M> = M & { readonly foghorn: 'kube' };

/** Ours, or another user's message on the same channel (then ignored). */
export function isOurs<M>(message: unknown): message is Envelope<M> {
  return typeof message === 'object' && message !== null && (message as { foghorn?: unknown }).foghorn === 'kube';
}
