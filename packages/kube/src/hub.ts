/**
 * The primary's side of `-workers`: one {@link InformerRegistry} and one set of manifests
 * directories for every worker, so the API server sees the watches of one process whatever the
 * number of workers. A worker's informer (remote.ts) is one reference here, held until the worker
 * releases it or exits; the hub forwards each informer's calls to every worker holding it, in
 * order, as JSON over the worker's IPC channel.
 *
 * Cost: an event is serialized once per worker that holds the informer and parsed once there; a
 * relist's `replace` carries the whole list, in parts (figures in docs/performance.md, "The
 * informer hub", from `npm run bench:informer-hub`).
 */
import type { Logger } from '@foghorn/core';
import { timeHttpRequests } from './http-timing.js';
import { isOurs, listChunk, toWire } from './ipc.js';
import type { Envelope, FromHub, ToHub } from './ipc.js';
import { ManifestsDirectory } from './manifests.js';
import { InformerRegistry } from './registry.js';
import type { InformerLease } from './registry.js';
import type { KubeObject } from './types.js';

/** A forked worker: `cluster.Worker` and `child_process.ChildProcess` both fit. */
export interface HubWorker {
  send(message: unknown, callback?: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: () => void): unknown;
}

export interface InformerHubOptions {
  /** The primary's logger; watch and manifests failures are logged as `plugin/NAME: ` of the plugin that asked. */
  readonly logger: Logger;
}

export interface InformerHub {
  /** Serves `worker`'s informers and manifests until it exits. */
  attach(worker: HubWorker): void;
  /**
   * `worker` finished starting. Until then an informer's first acquire waits for it (workers
   * start together); a started worker is not waited for, so a reload that adds an informer
   * (workers reload one after another) never waits.
   */
  started(worker: HubWorker): void;
  /** Drops every worker's references: watches stop, directories close. */
  close(): Promise<void>;
  /** The hub's registry, for tests and debugging (`list()`). */
  readonly registry: InformerRegistry;
}

/** A worker whose channel closed is about to exit: a failed send is not news. */
const ignoreSendError = (): void => {};

/**
 * How long the first worker's acquire of an informer waits for its siblings'. Workers start
 * together and ask for the same informers (one Corefile); the registry keeps no objects, so one
 * that joins after the list came would cost a relist of the whole resource from the API server.
 */
const siblingWaitMs = 2_000;

/** Acquires of one informer held until every worker still starting asked for it (or the wait ran out). */
class Gate {
  readonly asked = new Set<WorkerLink>();
  opened = false;
  private readonly waiters: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setTimeout(() => this.open(), siblingWaitMs);
    this.timer.unref();
  }

  wait(): Promise<void> {
    return this.opened ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Opens once every attached worker that is still starting asked. */
  check(links: ReadonlySet<WorkerLink>): void {
    for (const link of links) if (!link.gone && !link.started && !this.asked.has(link)) return;
    this.open();
  }

  open(): void {
    if (this.opened) return;
    this.opened = true;
    clearTimeout(this.timer);
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}

/** One subscription of a worker to a shared manifests directory. */
interface Subscription {
  readonly link: WorkerLink;
  readonly id: number;
  /** Wants onFile, onRemoved and onUnreadable. */
  readonly report: boolean;
  /** Got its `manifests-started`: later scans reach it as they happen. */
  started: boolean;
}

/** One directory read by the primary for every worker that opened it (same path, plugin and debounce). */
class SharedDirectory {
  readonly subscriptions: Subscription[] = [];
  /** The one subscription told about files (the first that asked, still open). */
  reporter: Subscription | undefined;
  readonly directory: ManifestsDirectory;
  readonly started: Promise<void>;

  constructor(
    readonly key: string,
    dir: string,
    logger: Logger,
    debounceMs: number | null,
  ) {
    this.directory = new ManifestsDirectory(dir, (objects) => this.applied(objects), logger, {
      ...(debounceMs !== null ? { debounceMs } : {}),
      onFile: (path, items) => this.toReporter({ type: 'manifests-file', id: 0, path, items }),
      onRemoved: (path) => this.toReporter({ type: 'manifests-removed', id: 0, path }),
      onUnreadable: (path) => this.toReporter({ type: 'manifests-unreadable', id: 0, path }),
    });
    this.started = this.directory.start();
  }

  add(subscription: Subscription): void {
    this.subscriptions.push(subscription);
    if (!this.reporter && subscription.report) this.promote(subscription);
  }

  /** Removes `subscription`; a new reporter is told the directory's current files. */
  remove(subscription: Subscription): void {
    const at = this.subscriptions.indexOf(subscription);
    if (at >= 0) this.subscriptions.splice(at, 1);
    if (this.reporter !== subscription) return;
    this.reporter = undefined;
    const next = this.subscriptions.find((s) => s.report);
    if (next) this.promote(next);
  }

  /** Sends the current list to a subscription that joined after the first scan, and starts it. */
  catchUp(subscription: Subscription): void {
    const { directory } = this;
    subscription.link.send({ type: 'manifests-apply', id: subscription.id, items: directory.objects(), watchRestarts: this.restartsFor(subscription) });
    subscription.started = true;
    subscription.link.send({ type: 'manifests-started', id: subscription.id });
  }

  /**
   * The reporter's files (and metrics) must reflect the directory: a reporter that takes over
   * after the first scan hears of every current file, as a fresh process would.
   */
  private promote(subscription: Subscription): void {
    this.reporter = subscription;
    if (this.directory.scans === 0) return;
    const { files, unreadable } = this.directory.contents();
    for (const [path, items] of files) subscription.link.send({ type: 'manifests-file', id: subscription.id, path, items });
    for (const path of unreadable) subscription.link.send({ type: 'manifests-unreadable', id: subscription.id, path });
  }

  private toReporter(message: FromHub & { id: 0 }): void {
    const reporter = this.reporter;
    if (reporter) reporter.link.send({ ...message, id: reporter.id });
  }

  private applied(objects: readonly KubeObject[]): void {
    for (const s of this.subscriptions) {
      // One that joined during the first scan gets it here, and its `manifests-started` after.
      s.link.send({ type: 'manifests-apply', id: s.id, items: objects, watchRestarts: this.restartsFor(s) });
    }
  }

  /** Watcher restarts are the reporter's to count, so their sum over workers is the primary's. */
  private restartsFor(subscription: Subscription): number {
    return subscription === this.reporter ? this.directory.watchRestarts : 0;
  }
}

/** One attached worker: its leases and directories, dropped when it exits. */
class WorkerLink {
  /** Informer streams by the worker's id; undefined once the acquire failed. */
  readonly leases = new Map<number, Promise<InformerLease | undefined>>();
  readonly directories = new Map<number, [SharedDirectory, Subscription]>();
  gone = false;
  /** Finished starting (the primary said so): informers' first acquires do not wait for it. */
  started = false;

  constructor(private readonly worker: HubWorker) {}

  send(message: FromHub): void {
    if (this.gone) return;
    if ('items' in message && message.items.length > listChunk) {
      const { items } = message;
      const last = items.length - ((items.length - 1) % listChunk) - 1;
      for (let at = 0; at < last; at += listChunk) this.post({ type: 'part', id: message.id, items: items.slice(at, at + listChunk) });
      this.post({ ...message, items: items.slice(last) });
      return;
    }
    this.post(message);
  }

  private post(message: FromHub): void {
    const envelope: Envelope<FromHub> = { foghorn: 'kube', ...message };
    this.worker.send(envelope, ignoreSendError);
  }
}

export function startInformerHub(options: InformerHubOptions): InformerHub {
  const registry = new InformerRegistry();
  const directories = new Map<string, SharedDirectory>();
  const links = new Set<WorkerLink>();
  const linkOf = new Map<HubWorker, WorkerLink>();
  const loggers = new Map<string, Logger>();
  /** By connection and resource; an opened gate stays open (later acquires are restarted workers). */
  const gates = new Map<string, Gate>();
  let closed = false;
  const loggerFor = (plugin: string): Logger => {
    let logger = loggers.get(plugin);
    if (!logger) loggers.set(plugin, (logger = options.logger.forPlugin(plugin)));
    return logger;
  };

  // The REST client metrics time the HTTP requests of the process they run in, and the
  // informers' requests are made here: each one, once answered, goes to one worker (the oldest),
  // so the sum over workers is one process's count.
  const stopTiming = timeHttpRequests((request) => {
    for (const link of links) {
      if (link.gone) continue;
      link.send({ type: 'http', id: 0, request });
      return;
    }
  });

  /**
   * Worker streams per informer, in acquire order. The first leads the informer's reports: the
   * workers run one Corefile, so any of them reports what one process would.
   */
  const streams = new Map<string, { readonly link: WorkerLink; readonly id: number }[]>();

  /** The informer of each stream, once acquired. */
  const keys = new Map<WorkerLink, Map<number, string>>();

  function leads(link: WorkerLink, id: number): boolean {
    const key = keys.get(link)?.get(id);
    const first = key === undefined ? undefined : streams.get(key)?.[0];
    return first?.link === link && first.id === id;
  }

  function join(key: string, link: WorkerLink, id: number): void {
    let ids = keys.get(link);
    if (!ids) keys.set(link, (ids = new Map()));
    ids.set(id, key);
    let list = streams.get(key);
    if (!list) streams.set(key, (list = []));
    list.push({ link, id });
    if (list.length === 1) link.send({ type: 'lead', id });
  }

  function leave(key: string, link: WorkerLink, id: number): void {
    const ids = keys.get(link);
    ids?.delete(id);
    if (ids?.size === 0) keys.delete(link);
    const list = streams.get(key);
    const at = list?.findIndex((s) => s.link === link && s.id === id) ?? -1;
    if (!list || at < 0) return;
    list.splice(at, 1);
    if (list.length === 0) streams.delete(key);
    else if (at === 0) list[0]!.link.send({ type: 'lead', id: list[0]!.id });
  }

  async function release(link: WorkerLink, id: number): Promise<void> {
    const pending = link.leases.get(id);
    link.leases.delete(id);
    const lease = await pending;
    if (!lease) return;
    leave(lease.key, link, id);
    await lease.release();
  }

  async function closeDirectory(link: WorkerLink, id: number): Promise<void> {
    const entry = link.directories.get(id);
    if (!entry) return;
    link.directories.delete(id);
    const [shared, subscription] = entry;
    shared.remove(subscription);
    if (shared.subscriptions.length > 0) return;
    if (directories.get(shared.key) === shared) directories.delete(shared.key);
    await shared.directory.stop();
  }

  async function openDirectory(link: WorkerLink, message: ToHub & { type: 'manifests-open' }): Promise<void> {
    const key = JSON.stringify([message.dir, message.plugin, message.debounceMs]);
    let shared = directories.get(key);
    if (!shared) {
      shared = new SharedDirectory(key, message.dir, loggerFor(message.plugin), message.debounceMs);
      directories.set(key, shared);
    }
    const subscription: Subscription = { link, id: message.id, report: message.report, started: false };
    // After the first scan's apply (which a subscription added now would miss): catch up.
    const wasStarted = shared.directory.scans > 0;
    shared.add(subscription);
    link.directories.set(message.id, [shared, subscription]);
    if (wasStarted) {
      shared.catchUp(subscription);
      return;
    }
    try {
      await shared.started;
    } catch (error) {
      link.directories.delete(message.id);
      shared.remove(subscription);
      if (directories.get(key) === shared) directories.delete(key);
      link.send({ type: 'manifests-started', id: message.id, error: toWire(error) });
      return;
    }
    if (subscription.started || !link.directories.has(message.id)) return;
    subscription.started = true;
    link.send({ type: 'manifests-started', id: message.id });
  }

  async function receive(link: WorkerLink, message: ToHub): Promise<void> {
    switch (message.type) {
      case 'connect': {
        const { env, serviceAccountDir } = message.options;
        try {
          const resolved = await registry.connect(message.connection, { ...(env ? { env } : {}), ...(serviceAccountDir !== undefined ? { serviceAccountDir } : {}) });
          link.send({ type: 'connected', id: message.id, server: resolved.server, source: resolved.source });
        } catch (error) {
          link.send({ type: 'connected', id: message.id, error: toWire(error) });
        }
        return;
      }
      case 'acquire': {
        const { id } = message;
        const gateKey = JSON.stringify([message.connection, message.resource]);
        let gate = gates.get(gateKey);
        if (!gate) gates.set(gateKey, (gate = new Gate()));
        gate.asked.add(link);
        gate.check(links);
        const acquired = gate
          .wait()
          .then(() => registry
          .acquire(
            message.connection,
            message.resource,
            {
              replace: (items, absent) => link.send({ type: 'replace', id, items, ...(absent === true ? { absent } : {}) }),
              part: (items, first) => link.send({ type: 'list-part', id, items, first }),
              upsert: (item) => link.send({ type: 'upsert', id, item }),
              remove: (item) => link.send({ type: 'remove', id, item }),
              // Counted where reports are: the sum over workers is the primary's count.
              restarted: () => {
                if (leads(link, id)) link.send({ type: 'restarted', id });
              },
            },
            { ...message.options, logger: loggerFor(message.plugin) },
          ))
          .then(
            (lease) => {
              // `lead` before `acquired`: the worker leads before its acquire returns and adds the
              // lease's reporter, which then gets the first list just before the subscriber, as in
              // one process (remote.ts delivers a stream's messages in order).
              join(lease.key, link, id);
              link.send({ type: 'acquired', id });
              return lease;
            },
            (error: unknown) => {
              link.send({ type: 'acquired', id, error: toWire(error) });
              return undefined;
            },
          );
        // A worker that exits while this is pending: detach releases the lease once acquired.
        link.leases.set(id, acquired);
        return;
      }
      case 'release':
        await release(link, message.id);
        link.send({ type: 'released', id: message.id });
        return;
      case 'relist':
        (await link.leases.get(message.id))?.relist();
        return;
      case 'manifests-open':
        await openDirectory(link, message);
        return;
      case 'manifests-scan': {
        const entry = link.directories.get(message.id);
        await entry?.[0].directory.scan().catch(() => {});
        link.send({ type: 'manifests-scanned', id: message.id });
        return;
      }
      case 'manifests-close':
        await closeDirectory(link, message.id);
        link.send({ type: 'manifests-closed', id: message.id });
        return;
    }
  }

  async function detach(link: WorkerLink): Promise<void> {
    link.gone = true;
    links.delete(link);
    for (const gate of gates.values()) if (!gate.opened) gate.check(links);
    await Promise.all([...[...link.leases.keys()].map((id) => release(link, id)), ...[...link.directories.keys()].map((id) => closeDirectory(link, id))]);
  }

  return {
    registry,
    attach(worker) {
      const link = new WorkerLink(worker);
      links.add(link);
      linkOf.set(worker, link);
      worker.on('message', (message) => {
        if (closed || !isOurs<ToHub>(message)) return;
        receive(link, message).catch((error: Error) => options.logger.error(`kube hub: ${message.type}: ${error.message}`));
      });
      worker.on('exit', () => {
        linkOf.delete(worker);
        detach(link).catch((error: Error) => options.logger.error(`kube hub: dropping an exited worker: ${error.message}`));
      });
    },
    started(worker) {
      const link = linkOf.get(worker);
      if (!link) return;
      link.started = true;
      for (const gate of gates.values()) if (!gate.opened) gate.check(links);
    },
    async close() {
      closed = true;
      stopTiming();
      for (const gate of gates.values()) gate.open();
      await Promise.all([...links].map((link) => detach(link)));
    },
  };
}
