/**
 * One list+watch per resource per process. An informer's identity is (connection, group,
 * version, plural, namespace, label selector, field selector); every plugin and
 * server block that asks for the same identity shares one watch. Informers are
 * reference-counted: acquire in `onStartup`, release in `onShutdown`. A reload runs the new
 * configuration's startup before the old one's shutdown, so an informer both keep is never
 * stopped.
 *
 * The registry keeps no copy of the objects: each subscriber keeps what it needs of them (a
 * DNS index keeps a fraction of an object). A subscriber that joins an informer that has
 * listed already gets the state from a relist, as CoreDNS's new informers get it on a reload:
 * a plugin that keeps its index across reloads (as kubernetes and lighthouse do) never needs it.
 *
 * Keep the registry in core's `shared` state ({@link informerRegistry}): it then lives as long
 * as the server, across reloads, and every plugin of that server finds the same one.
 */
import path from 'node:path';
import { defineShared } from '@foghorn/core';
import type { Controller, Logger, SharedKey } from '@foghorn/core';
import type { ResolvedConnection } from './connection.js';
import { isHubWorker } from './ipc.js';
import { remoteBackend } from './remote.js';
import type { KubeConnection, KubeObject, ObjectSink, ResourceSpec, Watch } from './types.js';
import { resolveConnection, startWatch } from './watch.js';
import type { StartWatchOptions } from './watch.js';

/**
 * Receives one informer's state, synchronously and in event order. The objects are shared with
 * every other subscriber: read them, never change them, and keep only what is needed of them.
 */
export interface InformerSubscriber<T extends KubeObject = KubeObject> {
  /**
   * The complete current state, after every (re)list (first sync, 410 Gone, API server restart,
   * a subscriber joining an informer that had listed). Replaces everything seen before. With
   * {@link part}, the list's last page only (`ObjectSink.replace`). `absent`: the resource is
   * not served (`ObjectSink.replace`).
   */
  replace(items: readonly T[], absent?: boolean): void;
  /**
   * Optional: a list's pages but the last, as they arrive (`ObjectSink.part`). Without it the
   * registry gathers them, and `replace` gets the whole list: implement it to keep the peak low.
   */
  part?(items: readonly T[], first: boolean): void;
  /** An object was added or modified. */
  upsert(item: T): void;
  /** An object was deleted (or left the selector). */
  remove(item: T): void;
  /** Called once, right after the first complete list this subscriber gets. */
  synced?(): void;
  /** The list+watch restarted (the lease's `restarts` went up). */
  restarted?(): void;
}

/** A reference to a shared informer, held by one user (a plugin in one configuration). */
export interface InformerLease<T extends KubeObject = KubeObject> {
  /** The informer's identity; equal keys mean one shared list+watch. */
  readonly key: string;
  readonly resource: ResourceSpec<T>;
  /**
   * True once this lease's subscriber got its first complete list (an optional resource the
   * server lacks counts as an empty list); without a subscriber, once the informer listed.
   */
  readonly synced: boolean;
  /**
   * Restarts of the list+watch (errors, 410 relists) since this lease was acquired. Under
   * `-workers` they count in the worker that leads the informer's reports (see
   * `AcquireOptions.reporter`) and nowhere else, so a sum over workers is the server's count.
   */
  readonly restarts: number;
  /** Lists again: every subscriber gets the whole state (`Watch.relist`). */
  relist(): void;
  /** Unsubscribes and drops the reference; the last release stops the watch. Idempotent. */
  release(): Promise<void>;
}

/** Options of {@link InformerRegistry.acquire}; the first acquirer's options start the informer. */
export interface AcquireOptions extends StartWatchOptions {
  /** The plugin's logger (`c.log`); the informer logs through the first acquirer's logger. */
  readonly logger: Logger;
  /**
   * The plugin's name. Under `-workers` the watch runs in the primary (hub.ts), which cannot use
   * a worker's logger: its lines read `plugin/NAME: `. Default `kube`.
   */
  readonly plugin?: string;
  /**
   * Side effects that must happen once per server, not once per worker (logging and counting
   * bad objects): this lease's second subscriber, told everything just before `subscriber`. In
   * one process it always is; under `-workers` it is in one worker per informer, and a worker
   * that takes that role over (its predecessor exited) gets the current objects from a relist.
   * Not part of the informer's options: each lease brings its own.
   */
  readonly reporter?: InformerSubscriber;
}

/** What plugins read of a resolved connection (for their `watching SERVER (SOURCE)` line). */
export type ConnectionInfo = Pick<ResolvedConnection, 'server' | 'source'>;

/** What a backend feeds: the informer's calls, and when this process leads its reports. */
export interface InformerSink extends ObjectSink {
  part(items: readonly KubeObject[], first: boolean): void;
  /** From now on this process's reporters (`AcquireOptions.reporter`) are told; idempotent. */
  lead(): void;
}

/**
 * Where a registry's informers come from: this process's own list+watch (the default), or a
 * `-workers` primary over IPC (remote.ts). Both deliver the same calls to the sink, in order.
 */
export interface InformerBackend {
  /** Rejects with a `KubeConnectionError` when nothing usable is configured. */
  connect(connection: KubeConnection, options: Pick<StartWatchOptions, 'env' | 'serviceAccountDir'>): Promise<ConnectionInfo>;
  /** Starts one list+watch into `sink`; `resolved` is what `connect` gave for `connection`. */
  watch(connection: KubeConnection, resolved: ConnectionInfo, resource: ResourceSpec, sink: InformerSink, options: AcquireOptions): Promise<Watch>;
}

/** The informers of this process: resolve and watch here. */
const localBackend: InformerBackend = {
  connect: (connection, options) => resolveConnection(connection, options.env ?? process.env, options),
  // `resolved` came from `connect` above, so it carries the client configuration.
  watch: (_connection, resolved, resource, sink, options) => {
    sink.lead();
    return startWatch(resolved as ResolvedConnection, resource, sink, options);
  },
};

/**
 * The identity of a connection: what the Corefile names, made absolute, plus what the implicit
 * sources (service account, $KUBECONFIG) read from the environment.
 */
export function connectionKey(connection: KubeConnection, env: NodeJS.ProcessEnv = process.env, serviceAccountDir?: string): string {
  const explicit = connection.kubeconfig !== undefined || connection.endpoint !== undefined;
  return JSON.stringify([
    connection.kubeconfig !== undefined ? path.resolve(connection.kubeconfig) : null,
    connection.context ?? null,
    connection.endpoint?.replace(/\/+$/, '') ?? null,
    explicit ? null : [env['KUBERNETES_SERVICE_HOST'] ?? null, env['KUBERNETES_SERVICE_PORT'] ?? null, serviceAccountDir ?? null, env['KUBECONFIG'] ?? null],
  ]);
}

/**
 * The identity of an informer: its connection's and its resource's. `optional` is not part of it:
 * the same list+watch serves a plugin that needs the resource (kubernetes' `multicluster`) and one
 * that does without it (lighthouse); the first acquirer's `optional` decides what a server without
 * the resource gives (an empty, synced list, or retries until it appears).
 */
export function informerKey(connectionId: string, resource: ResourceSpec): string {
  const { group, version, plural, namespace, labelSelector, fieldSelector } = resource;
  return JSON.stringify([connectionId, group, version, plural, namespace ?? null, labelSelector ?? null, fieldSelector ?? null]);
}

/** What one informer looks like from outside, for tests and debugging. */
export interface InformerInfo {
  readonly key: string;
  readonly resource: ResourceSpec;
  readonly users: number;
  readonly subscribers: number;
  readonly synced: boolean;
}

/** The annotation `kubectl apply` keeps a whole copy of the object in. */
const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Drops what no DNS plugin reads and what is often most of an object's size: the server-side
 * apply bookkeeping (`metadata.managedFields`) and kubectl's copy of the applied object. The
 * objects are the informer's own (parsed from the response), so they are trimmed in place.
 */
function trim(object: KubeObject): KubeObject {
  const metadata = object.metadata as { managedFields?: unknown; annotations?: Record<string, string> } | undefined;
  if (metadata?.managedFields !== undefined) delete metadata.managedFields;
  if (metadata?.annotations?.[lastAppliedAnnotation] !== undefined) delete metadata.annotations[lastAppliedAnnotation];
  return object;
}

/**
 * One list+watch and the subscribers it fans out to. It holds no objects: a list's pages pass
 * through to the subscribers as they arrive (`part`), except to a subscriber without `part`,
 * for which they are gathered until the list ends.
 */
class SharedInformer implements InformerSink {
  readonly subscribers = new Set<InformerSubscriber>();
  /** The leases' reporters, told only while this process leads (always, in one process). */
  readonly reporters = new Set<InformerSubscriber>();
  private leads = false;
  /** Subscribers and reporters still waiting for their first complete list, to be told `synced()` after it. */
  private readonly unsynced = new Set<InformerSubscriber>();
  /**
   * Those that joined while a list was under way: they missed its first parts, so they get none
   * of that list (the relist their joining asked for brings them a whole one).
   */
  private readonly joining = new Set<InformerSubscriber>();
  /** A list is under way: parts were delivered, its replace has not come yet. */
  private listing = false;
  /** The parts of the list under way, for subscribers without `part`; undefined when none needs them. */
  private gathered: KubeObject[] | undefined;
  users = 0;
  synced = false;
  watch: Watch | undefined;
  started: Promise<void> = Promise.resolve();

  constructor(
    readonly key: string,
    readonly connectionId: string,
    readonly resource: ResourceSpec,
  ) {}

  get restarts(): number {
    return this.watch?.restarts ?? 0;
  }

  subscribe(subscriber: InformerSubscriber): void {
    this.subscribers.add(subscriber);
    this.join(subscriber);
  }

  unsubscribe(subscriber: InformerSubscriber): void {
    this.subscribers.delete(subscriber);
    this.unsynced.delete(subscriber);
    this.joining.delete(subscriber);
  }

  addReporter(reporter: InformerSubscriber): void {
    this.reporters.add(reporter);
    if (this.leads) this.join(reporter);
  }

  removeReporter(reporter: InformerSubscriber): void {
    this.reporters.delete(reporter);
    this.unsynced.delete(reporter);
    this.joining.delete(reporter);
  }

  lead(): void {
    if (this.leads) return;
    this.leads = true;
    for (const reporter of this.reporters) this.join(reporter);
  }

  /**
   * A newcomer waits for its first complete list: the first one when none has come yet, else a
   * relist asked for now, since the registry keeps no objects to replay.
   */
  private join(subscriber: InformerSubscriber): void {
    this.unsynced.add(subscriber);
    if (this.listing) this.joining.add(subscriber);
    if (this.synced || this.listing) this.watch?.relist();
  }

  part(items: readonly KubeObject[], first: boolean): void {
    for (const item of items) trim(item);
    if (first) {
      // A list (re)starts: everyone takes part in it, and parts of one cut short are dropped.
      this.joining.clear();
      this.gathered = undefined;
    }
    this.listing = true;
    if (this.needsGathering()) {
      this.gathered ??= [];
      for (const item of items) this.gathered.push(item);
    }
    this.fanOutAll((s) => s.part?.(items, first));
  }

  replace(items: readonly KubeObject[], absent = false): void {
    for (const item of items) trim(item);
    const gathered = this.gathered;
    const whole = this.listing ? (gathered !== undefined ? [...gathered, ...items] : undefined) : items;
    this.listing = false;
    this.gathered = undefined;
    this.synced = true;
    const waiting = new Set(this.unsynced);
    this.fanOutAll((s) => {
      const wantsParts = s.part !== undefined;
      if (!wantsParts && whole === undefined) return;
      try {
        s.replace(wantsParts ? items : whole!, absent);
      } finally {
        if (waiting.has(s)) {
          this.unsynced.delete(s);
          s.synced?.();
        }
      }
    });
  }

  upsert(item: KubeObject): void {
    trim(item);
    this.fanOutAll((s) => s.upsert(item));
  }

  remove(item: KubeObject): void {
    trim(item);
    this.fanOutAll((s) => s.remove(item));
  }

  restarted(): void {
    this.fanOutAll((s) => s.restarted?.());
  }

  /** Whether `subscriber` still waits for its first complete list. */
  waits(subscriber: InformerSubscriber): boolean {
    return this.unsynced.has(subscriber);
  }

  /** Some subscriber takes no parts: the list's pages are gathered for it. */
  private needsGathering(): boolean {
    for (const s of this.subscribers) if (s.part === undefined) return true;
    if (this.leads) for (const r of this.reporters) if (r.part === undefined) return true;
    return false;
  }

  /** The reporters (when this process leads), then the subscribers; not those joining during a list. */
  private fanOutAll(call: (subscriber: InformerSubscriber) => void): void {
    if (!this.leads || this.reporters.size === 0) {
      this.fanOut(this.subscribers, call);
      return;
    }
    let failure: unknown;
    let failed = false;
    try {
      this.fanOut(this.reporters, call);
    } catch (error) {
      failure = error;
      failed = true;
    }
    this.fanOut(this.subscribers, call);
    if (failed) throw failure;
  }

  /** Every subscriber gets the call even if one throws; the first error goes on to the informer's log. */
  private fanOut(subscribers: ReadonlySet<InformerSubscriber>, call: (subscriber: InformerSubscriber) => void): void {
    let failure: unknown;
    let failed = false;
    for (const subscriber of subscribers) {
      if (this.joining.has(subscriber)) continue;
      try {
        call(subscriber);
      } catch (error) {
        if (!failed) failure = error;
        failed = true;
      }
    }
    if (failed) throw failure;
  }
}

/** The informers of one process (one server), shared by every plugin and server block. */
export class InformerRegistry {
  private readonly informers = new Map<string, SharedInformer>();
  /** Resolved connections, kept while an informer uses them. */
  private readonly connections = new Map<string, Promise<ConnectionInfo>>();

  /** `backend`: where the list+watches run; this process by default. */
  constructor(private readonly backend: InformerBackend = localBackend) {}

  /**
   * Resolves `connection` once and keeps the result while an informer uses it. Rejects with a
   * `KubeConnectionError` when nothing usable is configured (not cached: a retry reads again).
   */
  connect(connection: KubeConnection, options: Pick<StartWatchOptions, 'env' | 'serviceAccountDir'> = {}): Promise<ConnectionInfo> {
    const env = options.env ?? process.env;
    const id = connectionKey(connection, env, options.serviceAccountDir);
    let resolved = this.connections.get(id);
    if (!resolved) {
      const attempt = this.backend.connect(connection, options);
      resolved = attempt;
      this.connections.set(id, attempt);
      attempt.catch(() => {
        if (this.connections.get(id) === attempt) this.connections.delete(id);
      });
    }
    return resolved;
  }

  /**
   * Takes a reference to the informer for `resource` on `connection`, starting it (list, then
   * watch, in the background) when nobody holds it yet. Resolves before the first list; the
   * subscriber gets the current state at once when the informer has already listed. Rejects
   * when the connection cannot be resolved or an option is out of range.
   */
  async acquire<T extends KubeObject>(
    connection: KubeConnection,
    resource: ResourceSpec<T>,
    subscriber: InformerSubscriber<NoInfer<T>> | undefined,
    options: AcquireOptions,
  ): Promise<InformerLease<T>> {
    const connectionId = connectionKey(connection, options.env ?? process.env, options.serviceAccountDir);
    const key = informerKey(connectionId, resource);
    let shared = this.informers.get(key);
    if (!shared) {
      const entry = new SharedInformer(key, connectionId, resource);
      entry.started = (async () => {
        entry.watch = await this.backend.watch(connection, await this.connect(connection, options), resource, entry, options);
      })();
      entry.started.catch(() => {
        if (this.informers.get(key) === entry) this.forget(entry);
      });
      this.informers.set(key, entry);
      shared = entry;
    }
    const current = shared;
    current.users++;
    try {
      await current.started;
    } catch (error) {
      current.users--;
      throw error;
    }
    const sub = subscriber as InformerSubscriber | undefined;
    const reporter = options.reporter;
    try {
      if (reporter) current.addReporter(reporter);
      if (sub) current.subscribe(sub);
    } catch (error) {
      if (reporter) current.removeReporter(reporter);
      if (sub) current.unsubscribe(sub);
      await this.drop(current);
      throw error;
    }
    const restartsAtAcquire = current.restarts;
    let released = false;
    return {
      key,
      resource,
      get synced() {
        return current.synced && (sub === undefined || !current.waits(sub));
      },
      get restarts() {
        return current.restarts - restartsAtAcquire;
      },
      relist: () => current.watch?.relist(),
      release: async () => {
        if (released) return;
        released = true;
        if (reporter) current.removeReporter(reporter);
        if (sub) current.unsubscribe(sub);
        await this.drop(current);
      },
    };
  }

  /** The running informers. */
  list(): InformerInfo[] {
    return [...this.informers.values()].map((i) => ({
      key: i.key,
      resource: i.resource,
      users: i.users,
      subscribers: i.subscribers.size,
      synced: i.synced,
    }));
  }

  /** Drops one reference; the last one stops the watch. */
  private async drop(informer: SharedInformer): Promise<void> {
    if (--informer.users > 0) return;
    if (this.informers.get(informer.key) === informer) this.forget(informer);
    await informer.watch?.stop();
  }

  /** Drops an informer from the registry, and its connection when no other informer uses it. */
  private forget(informer: SharedInformer): void {
    this.informers.delete(informer.key);
    for (const other of this.informers.values()) if (other.connectionId === informer.connectionId) return;
    this.connections.delete(informer.connectionId);
  }
}

/** The key of the registry in core's `shared` state. */
export const registryKey: SharedKey<InformerRegistry> = defineShared<InformerRegistry>('kube/informers');

/**
 * The process's informer registry, kept in core's `shared` state so it outlives reloads and
 * every plugin of the server gets the same one: `informerRegistry(c)` in setup.
 */
export function informerRegistry(c: Pick<Controller, 'shared'>): InformerRegistry {
  return c.shared(registryKey, () => new InformerRegistry(isHubWorker() ? remoteBackend() : localBackend));
}
