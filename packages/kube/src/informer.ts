/**
 * An informer that survives the real world. It lists in pages, hands the full list to the sink,
 * then watches from the list's resourceVersion with bookmarks and a server-side timeout, and
 * resumes from the last resourceVersion seen whenever the stream ends.
 *
 * Why not the client library's ListWatch (@kubernetes/client-node 1.4.0, dist/cache.js)? Read
 * there: an error from the watch or a failed list calls the ERROR callbacks and returns, so it
 * never restarts; `start()` resolves even when the first list failed; it sends neither
 * `allowWatchBookmarks` nor `timeoutSeconds`; and a relist reaches handlers as separate
 * deletes and adds, never as one atomic list. Its `Watch` (dist/watch.js) swallows exceptions
 * thrown by the event callback and returns its AbortController only once response headers
 * arrive, so a server that accepts and then stays silent would hang it forever. The requests
 * here (request.ts) are node:https with the connection's agent, which the watchdog or stop()
 * destroys at any stage.
 */
import { formatDuration } from '@foghorn/core';
import type { Logger } from '@foghorn/core';
import { Backoff, ThrottledLog } from './backoff.js';
import type { RequestAuth, ResolvedConnection } from './connection.js';
import { getJson, KubeApiError, openWatch, statusError } from './request.js';
import { resourceName } from './resources.js';
import type { KubeObject, ObjectSink, ResourceSpec, Watch } from './types.js';

/** Tuning for {@link Informer}; every field has a production default. */
export interface InformerOptions {
  /** The plugin's logger (`c.log`), so lines read `[WARNING] plugin/NAME: ...`. */
  readonly logger: Logger;
  /** First retry delay after a failure, ms. Default 1000. */
  readonly backoffInitialMs?: number;
  /** Longest retry delay, ms; also how often an absent optional resource is checked. Default 30000. */
  readonly backoffMaxMs?: number;
  /** Server-side watch timeout, s. Default: random in [300, 600) per watch, as client-go does. */
  readonly watchTimeoutSeconds?: number;
  /**
   * Restart a watch (or list) when the server sends nothing for this long, ms. Default: the
   * watch's timeout plus 30 s for watches (bookmarks are not guaranteed on quiet resources), and
   * 60 s of silence for lists.
   */
  readonly watchdogMs?: number;
  /** Items per list page (`limit`/`continue`). Default 500. */
  readonly listPageSize?: number;
  /** At most one warning per watch per this many ms. Default 30000. */
  readonly logIntervalMs?: number;
}

export const defaultBackoffInitialMs = 1000;
export const defaultBackoffMaxMs = 30_000;
export const defaultListPageSize = 500;
export const defaultLogIntervalMs = 30_000;
const defaultListIdleMs = 60_000;
const watchdogGraceMs = 30_000;
/** A watch that ends cleanly sooner than this without any event counts as a failure (client-go's "very short watch"). */
const shortWatchMs = 1000;

type Outcome =
  | { readonly kind: 'closed'; readonly events: number; readonly durationMs: number }
  | { readonly kind: 'gone' }
  | { readonly kind: 'failed'; readonly error: Error; readonly statusCode: number | undefined; readonly events: number; readonly durationMs: number }
  /** Ended by stop() or relist(). */
  | { readonly kind: 'cancelled' };

interface ListBody {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
  readonly metadata?: { readonly resourceVersion?: unknown; readonly continue?: unknown };
  readonly items?: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function statusCodeOf(err: unknown): number | undefined {
  if (err instanceof KubeApiError) return err.statusCode;
  if (isObject(err) && typeof err['statusCode'] === 'number') return err['statusCode'];
  return undefined;
}

function describe(err: Error, statusCode: number | undefined): string {
  if (err instanceof KubeApiError || statusCode === undefined) return err.message;
  return `${statusCode} ${err.message}`;
}

/**
 * The API server does not know the resourceVersion the watch resumes from: it is ahead of the
 * server's (etcd restored from a backup or replaced, the numbering started again lower). Only a
 * relist gets out of it; resuming from the same version fails the same way for ever. client-go's
 * reflector relists on it too (apimachinery errors.go `IsTooLargeResourceVersionError`: a 504
 * Timeout whose cause is `ResourceVersionTooLarge`, or whose message says so).
 */
function tooLargeResourceVersion(status: Record<string, unknown>): boolean {
  if (status['code'] !== 504) return false;
  const details = isObject(status['details']) ? status['details'] : {};
  const causes = Array.isArray(details['causes']) ? details['causes'] : [];
  if (causes.some((cause) => isObject(cause) && cause['reason'] === 'ResourceVersionTooLarge')) return true;
  return typeof status['message'] === 'string' && status['message'].includes('Too large resource version');
}

/** `/api/v1[/namespaces/NS]/PLURAL` or `/apis/GROUP/VERSION[/namespaces/NS]/PLURAL`. */
export function resourcePath(resource: ResourceSpec): string {
  const prefix = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const namespace = resource.namespace !== undefined ? `/namespaces/${encodeURIComponent(resource.namespace)}` : '';
  return `${prefix}${namespace}/${resource.plural}`;
}

/** One watched resource. Create with `startWatch`; the loop runs until {@link stop}. */
export class Informer implements Watch {
  synced = false;
  restarts = 0;
  /** Where the next watch resumes; '' means the next step is a full list. */
  private resourceVersion = '';
  private stopped = false;
  /** relist() asked for a list from the first page; the current request was cancelled for it. */
  private relistWanted = false;
  /** A resource marked optional that the server does not serve (404). */
  private absent = false;
  private cancelCurrent: (() => void) | undefined;
  private wake: (() => void) | undefined;
  private loop: Promise<void> = Promise.resolve();
  private readonly name: string;
  private readonly path: string;
  private readonly apiVersion: string;
  private readonly backoff: Backoff;
  private readonly log: ThrottledLog;
  private readonly backoffMaxMs: number;

  constructor(
    private readonly connection: ResolvedConnection,
    private readonly resource: ResourceSpec,
    private readonly sink: ObjectSink,
    private readonly options: InformerOptions,
  ) {
    this.name = `watch ${resourceName(resource)}`;
    this.path = resourcePath(resource);
    this.apiVersion = resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
    this.backoffMaxMs = options.backoffMaxMs ?? defaultBackoffMaxMs;
    this.backoff = new Backoff(options.backoffInitialMs ?? defaultBackoffInitialMs, this.backoffMaxMs);
    this.log = new ThrottledLog(options.logger, options.logIntervalMs ?? defaultLogIntervalMs);
  }

  /** Starts the list/watch loop in the background; failures are retried, never thrown. */
  start(): void {
    this.loop = this.run().catch((err: unknown) => {
      this.log.error(`${this.name}: stopped by an unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    });
  }

  relist(): void {
    if (this.stopped) return;
    this.relistWanted = true;
    this.cancelCurrent?.();
    // An absent optional resource waits between checks: check now. (A failing one keeps its backoff.)
    if (this.absent) this.wake?.();
  }

  /** True once after relist() was called: the caller lists from the first page. */
  private takeRelist(): boolean {
    const wanted = this.relistWanted;
    this.relistWanted = false;
    return wanted;
  }

  /** Ends the loop and its connection; resolves when nothing of it runs any more. Idempotent. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.log.close();
      this.cancelCurrent?.();
      this.wake?.();
    }
    await this.loop;
  }

  private async run(): Promise<void> {
    // Two 410s with no progress in between mean relisting immediately is not helping.
    let gonesInARow = 0;
    while (!this.stopped) {
      if (this.resourceVersion === '') {
        const listed = await this.list(this.takeRelist());
        if (this.stopped) return;
        if (listed === 'absent') {
          await this.sleep(this.backoffMaxMs);
          continue;
        }
        if (listed !== 'ok') {
          this.restarted();
          const delay = this.backoff.next();
          this.log.warning(`${this.name}: list: ${describe(listed, statusCodeOf(listed))}; retrying in ${formatDuration(delay)}`);
          await this.sleep(delay);
          continue;
        }
      }
      const outcome = await this.watchOnce();
      if (this.stopped) return;
      if (this.takeRelist()) {
        this.resourceVersion = '';
        continue;
      }
      if (outcome.kind === 'cancelled') continue;
      let delay = 0;
      if (outcome.kind === 'gone' || (outcome.kind === 'failed' && outcome.statusCode === 410)) {
        // The history to resume from is gone (etcd compaction, API server restart): relist.
        // The relist's replace() swaps the whole state, so the sink never sees a gap.
        this.resourceVersion = '';
        this.restarted();
        gonesInARow++;
        if (gonesInARow > 1) delay = this.backoff.next();
      } else {
        if (outcome.events > 0) gonesInARow = 0;
        // A watch that worked for a while resets the pace: its failure is news, not a streak.
        if (outcome.events > 0 || outcome.durationMs >= this.backoffMaxMs) this.backoff.reset();
        if (outcome.kind === 'closed') {
          if (outcome.events === 0 && outcome.durationMs < shortWatchMs) {
            this.restarted();
            delay = this.backoff.next();
            this.log.warning(`${this.name}: watch closed after ${formatDuration(outcome.durationMs)} without events; retrying in ${formatDuration(delay)}`);
          }
          // Otherwise the server-side timeout ended it: resume at once from resourceVersion.
        } else if (outcome.statusCode === 404) {
          // The CRD went away while watched: the relist will find it absent and empty the sink.
          this.resourceVersion = '';
        } else {
          this.restarted();
          delay = this.backoff.next();
          this.log.warning(`${this.name}: watch: ${describe(outcome.error, outcome.statusCode)}; retrying in ${formatDuration(delay)}`);
        }
      }
      if (delay > 0) await this.sleep(delay);
    }
  }

  /**
   * Lists every page into the sink: `part` for each page but the last when the sink takes parts,
   * then `replace` (with every page when it does not).
   */
  private async list(asked: boolean): Promise<'ok' | 'absent' | Error> {
    let auth: RequestAuth;
    try {
      auth = await this.connection.authorize(true);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
    // One agent for every page: its connection carries the next page's request.
    try {
      return await this.listPages(auth, asked);
    } finally {
      auth.agent.destroy();
    }
  }

  /** `asked`: relist() asked for this list, so its subscribers get a replace even when nothing changed. */
  private async listPages(auth: RequestAuth, asked: boolean): Promise<'ok' | 'absent' | Error> {
    const parts = this.sink.part !== undefined;
    /** The pages so far, for a sink without `part`; the page just read, for one with it. */
    let items: KubeObject[] = [];
    let listed = 0;
    let first = true;
    let listVersion = '';
    let token: string | undefined;
    let expiredRetries = 1;
    const startOver = (): void => {
      token = undefined;
      items = [];
      listed = 0;
      first = true;
    };
    for (;;) {
      if (this.stopped) return 'ok';
      if (this.takeRelist()) {
        asked = true;
        startOver();
      }
      const query = new URLSearchParams();
      if (this.resource.labelSelector !== undefined) query.set('labelSelector', this.resource.labelSelector);
      if (this.resource.fieldSelector !== undefined) query.set('fieldSelector', this.resource.fieldSelector);
      query.set('limit', String(this.options.listPageSize ?? defaultListPageSize));
      if (token !== undefined) query.set('continue', token);
      const pending = getJson(auth, this.connection.server, this.path, query, this.options.watchdogMs ?? defaultListIdleMs);
      this.cancelCurrent = pending.cancel;
      let body: unknown;
      try {
        body = await pending.result;
      } catch (err) {
        if (this.stopped) return 'ok';
        if (this.relistWanted) continue;
        // A required resource that listed once and is now not served had its CRD deleted, which
        // deletes every object of it first: empty is its true state, even when the watch missed
        // the deletions. (CoreDNS's reflector keeps whatever it last saw, until the CRD is back.)
        if (err instanceof KubeApiError && err.statusCode === 404 && (this.resource.optional || this.synced)) return this.markAbsent(asked);
        if (err instanceof KubeApiError && err.statusCode === 410 && token !== undefined && expiredRetries-- > 0) {
          // The continue token expired between pages (etcd compacted the list's revision): list
          // again from the first page. client-go's pager falls back to one unpaged list here,
          // which would hold the whole list's text and objects at once.
          startOver();
          continue;
        }
        return err instanceof Error ? err : new Error(String(err));
      } finally {
        this.cancelCurrent = undefined;
      }
      if (this.stopped) return 'ok';
      const list = (isObject(body) ? body : {}) as ListBody;
      if (!Array.isArray(list.items) && list.items !== null && list.items !== undefined) return new Error('list response has no items array');
      const listKind = typeof list.kind === 'string' && list.kind.endsWith('List') ? list.kind.slice(0, -4) : undefined;
      const apiVersion = typeof list.apiVersion === 'string' ? list.apiVersion : this.apiVersion;
      for (const item of (list.items ?? []) as unknown[]) {
        if (!isObject(item)) continue;
        // Lists of built-in types omit each item's apiVersion and kind; the sink gets them
        // filled in. The objects were parsed for this informer alone: no copy is needed.
        item['apiVersion'] ??= apiVersion;
        if (listKind !== undefined) item['kind'] ??= listKind;
        items.push(item as KubeObject);
        listed++;
      }
      const rv = list.metadata?.resourceVersion;
      listVersion = typeof rv === 'string' ? rv : '';
      const next = list.metadata?.continue;
      token = typeof next === 'string' && next !== '' ? next : undefined;
      if (token === undefined) break;
      if (parts) {
        const page = items;
        const isFirst = first;
        items = [];
        first = false;
        this.deliver('part', () => this.sink.part!(page, isFirst));
      }
    }
    this.deliver('replace', () => this.sink.replace(items));
    this.resourceVersion = listVersion;
    this.synced = true;
    this.backoff.reset();
    this.log.recovered((n) => `${this.name}: listed ${listed} object${listed === 1 ? '' : 's'} after ${n} failed attempt${n === 1 ? '' : 's'}`);
    if (this.absent) {
      this.absent = false;
      this.log.info(`${this.name}: the API server serves it now`);
    }
    return 'ok';
  }

  /** An optional resource is not served: empty state, synced, and check again slowly. */
  private markAbsent(asked: boolean): 'absent' {
    if (!this.absent || !this.synced || asked) this.deliver('replace', () => this.sink.replace([], true));
    if (!this.absent || !this.synced) this.log.info(`${this.name}: not served by the API server (404); treating it as empty, checking every ${formatDuration(this.backoffMaxMs)}`);
    this.absent = true;
    this.synced = true;
    this.backoff.reset();
    return 'absent';
  }

  /** One watch stream, from `resourceVersion` until it ends, fails, goes silent or is stopped. */
  private watchOnce(): Promise<Outcome> {
    if (this.relistWanted) return Promise.resolve({ kind: 'cancelled' });
    return new Promise<Outcome>((resolve) => {
      const startedAt = Date.now();
      const timeoutSeconds = this.options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
      const watchdogMs = this.options.watchdogMs ?? timeoutSeconds * 1000 + watchdogGraceMs;
      let events = 0;
      let finished = false;
      let auth: RequestAuth | undefined;
      let stream: { cancel(): void } | undefined;
      const failed = (error: unknown): Outcome => ({
        kind: 'failed',
        error: error instanceof Error ? error : new Error(String(error)),
        statusCode: statusCodeOf(error),
        events,
        durationMs: Date.now() - startedAt,
      });
      const finish = (outcome: Outcome): void => {
        if (finished) return;
        finished = true;
        this.cancelCurrent = undefined;
        stream?.cancel();
        auth?.agent.destroy();
        resolve(outcome);
      };
      this.cancelCurrent = () => finish({ kind: 'cancelled' });

      const query = new URLSearchParams({ watch: 'true', resourceVersion: this.resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: String(timeoutSeconds) });
      if (this.resource.labelSelector !== undefined) query.set('labelSelector', this.resource.labelSelector);
      if (this.resource.fieldSelector !== undefined) query.set('fieldSelector', this.resource.fieldSelector);
      const onEvent = (type: string, object: unknown): void => {
        if (finished || this.stopped) return;
        events++;
        if (type === 'ERROR') {
          const status = isObject(object) ? object : {};
          if (status['code'] === 410 || status['reason'] === 'Expired' || status['reason'] === 'Gone' || tooLargeResourceVersion(status)) {
            finish({ kind: 'gone' });
          } else {
            const code = typeof status['code'] === 'number' ? status['code'] : 500;
            finish(failed(statusError(code, status, 'error event')));
          }
          return;
        }
        if (!isObject(object)) return;
        object['apiVersion'] ??= this.apiVersion;
        const item = object as KubeObject;
        if (type === 'ADDED' || type === 'MODIFIED') this.deliver('upsert', () => this.sink.upsert(item));
        else if (type === 'DELETED') this.deliver('remove', () => this.sink.remove(item));
        else if (type !== 'BOOKMARK') return;
        const rv = item.metadata?.resourceVersion;
        if (typeof rv === 'string' && rv !== '') this.resourceVersion = rv;
      };
      this.connection.authorize(false).then(
        (granted) => {
          if (finished) {
            granted.agent.destroy();
            return;
          }
          auth = granted;
          // The idle timeout is the watchdog: bookmarks are not guaranteed on quiet resources.
          stream = openWatch(granted, this.connection.server, this.path, query, watchdogMs, {
            opened: () => this.log.recovered((n) => `${this.name}: watching again after ${n} failed attempt${n === 1 ? '' : 's'}`),
            event: onEvent,
            closed: (error) => {
              if (error?.message.startsWith('no data for ')) finish(failed(new Error(`no data for ${formatDuration(watchdogMs)}, restarting`)));
              else finish(error ? failed(error) : { kind: 'closed', events, durationMs: Date.now() - startedAt });
            },
          });
        },
        (err: unknown) => finish(failed(err)),
      );
    });
  }

  /** Counts a restart and tells the sink (a `-workers` hub forwards it, see hub.ts). */
  private restarted(): void {
    this.restarts++;
    this.deliver('restarted', () => this.sink.restarted?.());
  }

  /** Calls the sink, keeping a throwing sink from killing the loop (the library would hide the error). */
  private deliver(what: string, call: () => void): void {
    if (this.stopped) return;
    try {
      call();
    } catch (err) {
      this.log.error(`${this.name}: sink ${what} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Waits `ms`, or less if stopped meanwhile. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.stopped) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
