/**
 * The IPC messages between the primary and the workers of `foghorn -workers N` (primary.ts,
 * worker.ts). Every message is an envelope `{ foghorn: CHANNEL, ... }`; each side ignores the
 * channels it does not know, so others share the IPC channel (`kube`: the informer hub of
 * @foghorn/kube).
 *
 *   worker                          primary
 *     hello ───────────────────────▶
 *           ◀──────────────────────── start (the Corefile every worker serves; what the
 *                                           process it replaces last answered)
 *     up (listeners) | failed ─────▶             after every `up`: zone lines, banner
 *     ask (topic) ─────────────────▶ question ──▶ every worker ──▶ reply ─┐
 *           ◀──────────────────────── answers (one per worker) ◀─────────┘
 *     reload-all ──────────────────▶ reload ──▶ worker 1, then 2, … ──▶ reloaded
 *           ◀──────────────────────── reload-all-done
 *     fatal ───────────────────────▶             every worker ends, exit status 1
 *           ◀──────────────────────── stop (SIGTERM, SIGINT on the primary)
 */
import type { CorefileSource, WorkerAnswer } from '@foghorn/core';
import type { ListenerInfo } from '@foghorn/core/server';

/** What a worker sends to the primary. */
export type ToPrimary =
  | { readonly foghorn: 'hello' }
  | { readonly foghorn: 'up'; readonly addresses: ListenerInfo[] }
  /** Start-up failed with this message, as the single process would print it. */
  | { readonly foghorn: 'failed'; readonly message: string }
  /** A plugin's `Controller.fatal`: the whole server ends. */
  | { readonly foghorn: 'fatal'; readonly message: string }
  | { readonly foghorn: 'ask'; readonly id: number; readonly topic: string; readonly timeoutMs: number }
  | { readonly foghorn: 'reply'; readonly id: number; readonly value?: unknown; readonly error?: string }
  | { readonly foghorn: 'reload-all'; readonly id: number }
  | { readonly foghorn: 'reloaded'; readonly id: number; readonly error?: string };

/** What the primary sends to a worker. */
export type ToWorker =
  /** `predecessor`: the last answers, by topic, of the process this worker replaces ({@link WorkerGroup.predecessor}). */
  | { readonly foghorn: 'start'; readonly corefile: CorefileSource; readonly predecessor: Readonly<Record<string, unknown>> }
  | { readonly foghorn: 'question'; readonly id: number; readonly topic: string }
  | { readonly foghorn: 'answers'; readonly id: number; readonly answers: WorkerAnswer[] }
  | { readonly foghorn: 'reload'; readonly id: number; readonly corefile: CorefileSource }
  | { readonly foghorn: 'reload-all-done'; readonly id: number; readonly error?: string }
  | { readonly foghorn: 'stop'; readonly graceful: boolean };

const channels = new Set(['hello', 'up', 'failed', 'fatal', 'ask', 'reply', 'reload-all', 'reloaded', 'start', 'question', 'answers', 'reload', 'reload-all-done', 'stop']);

/** Whether `message` is one of ours (another channel's, or not an envelope, is left alone). */
export function isOurs<M extends ToPrimary | ToWorker>(message: unknown): message is M {
  return typeof message === 'object' && message !== null && channels.has((message as { foghorn?: unknown }).foghorn as string);
}

/** The environment variable that makes the CLI run as worker N of a primary. */
export const WORKER_ENV = 'FOGHORN_WORKER';
/** The environment variable that carries the group's {@link WorkerGroup.id} to each worker. */
export const GROUP_ENV = 'FOGHORN_WORKER_GROUP';
