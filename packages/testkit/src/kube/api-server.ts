/**
 * A test Kubernetes API server on loopback: LIST, WATCH and GET for any served resource (core
 * `/api/v1/...` and `/apis/GROUP/VERSION/...`, namespaced and all-namespaces paths), with the
 * failure modes a real cluster shows (`410 Gone`, 5xx, 403, socket resets, silent connections,
 * restarts) under the test's control. Plain HTTP, or TLS with a bearer token.
 */
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { testTlsPair } from './files.js';
import { apiVersionOf, defaultResources, ObjectStore, parseFieldSelector, parseLabelSelector, resourceKey } from './store.js';
import type { ApiObject, ApiObjectMeta, ApiResource, FieldSelector, LabelSelector, StoredEvent } from './store.js';
import { errorMessage } from '@foghorn/core';

/** Options for {@link startKubeApiServer}. */
export interface KubeApiServerOptions {
  /** Serve HTTPS with a self-signed certificate ({@link KubeApiServer.ca} is its PEM). */
  readonly tls?: boolean;
  /** Require `Authorization: Bearer TOKEN` (401 otherwise). */
  readonly token?: string;
  /** Served resources; default {@link defaultResources}. */
  readonly resources?: readonly ApiResource[];
  /** Loopback address to bind; default 127.0.0.1. */
  readonly host?: string;
}

/** What a request asked for, kept in {@link KubeApiServer.requests} for assertions. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly verb: 'list' | 'watch' | 'get' | 'other';
  /** Plural resource name, when the path names one. */
  readonly resource?: string;
  readonly authorization?: string;
  /** Date.now() when it arrived. */
  readonly at: number;
  /** HTTP status sent, or 'stalled' when the server kept silent on purpose. */
  status?: number | 'stalled';
}

/** What {@link KubeApiServer.pageCounts} counts for one resource and selection. */
export interface PageCounts {
  /** First pages: list requests without a continue token. */
  lists: number;
  /** First pages without a `limit`: the whole list at once. */
  unlimited: number;
  /** Requests for a next page (with a continue token). */
  continued: number;
  /** Continue tokens answered `410 Expired`. */
  expired: number;
}

/** Which requests a fault applies to. */
export type RequestMatch = 'any' | 'list' | 'watch' | ((request: RecordedRequest) => boolean);

/** Kubernetes' error body (`kind: Status`). */
export interface ApiStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  code: number;
}

const reasons: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  410: 'Expired',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function apiStatus(code: number, message: string): ApiStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: reasons[code] ?? 'Unknown', code };
}

interface Route {
  readonly key: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly plural: string;
}

/** `/api/v1[/namespaces/NS]/PLURAL[/NAME]` or `/apis/G/V[/namespaces/NS]/PLURAL[/NAME]`. */
function parsePath(pathname: string): Route | undefined {
  const parts = pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  if (rest[0] === 'namespaces' && rest.length >= 3 && rest.length <= 4) {
    const plural = rest[2]!;
    return { key: resourceKey(group, version, plural), namespace: rest[1]!, plural, ...(rest[3] !== undefined ? { name: rest[3] } : {}) };
  }
  if (rest.length >= 1 && rest.length <= 2) {
    const plural = rest[0]!;
    return { key: resourceKey(group, version, plural), plural, ...(rest[1] !== undefined ? { name: rest[1] } : {}) };
  }
  return undefined;
}

/**
 * How {@link KubeApiServer.requestCounts} and {@link KubeApiServer.openWatches} name what a
 * request asked for: its path (which holds the namespace) plus the selectors it sent,
 * unencoded, e.g. `/apis/discovery.k8s.io/v1/endpointslices?labelSelector=app=x` or
 * `/api/v1/pods?fieldSelector=status.phase!=Failed`.
 */
export function selectionKey(path: string, query: Readonly<Record<string, string>>): string {
  const selectors = (['labelSelector', 'fieldSelector'] as const).filter((name) => query[name]).map((name) => `${name}=${query[name]}`);
  return selectors.length > 0 ? `${path}?${selectors.join('&')}` : path;
}

interface Watcher {
  readonly key: string;
  readonly resource: ApiResource;
  readonly namespace?: string;
  readonly selector: LabelSelector;
  readonly fields: FieldSelector;
  /** {@link selectionKey} of the request that opened it. */
  readonly selection: string;
  readonly bookmarks: boolean;
  readonly res: http.ServerResponse;
  silenced: boolean;
  timer?: NodeJS.Timeout;
}

interface Fault {
  readonly kind: 'status' | 'stall';
  readonly status: number;
  readonly message: string;
  readonly match: RequestMatch;
  /** A stall that ends: the request is served normally after this many ms. */
  readonly stallMs?: number;
  remaining: number;
}

interface Snapshot {
  readonly rv: number;
  readonly items: ApiObject[];
}

function matches(match: RequestMatch, request: RecordedRequest): boolean {
  if (typeof match === 'function') return match(request);
  return match === 'any' || match === request.verb;
}

/** The test API server. Create with {@link startKubeApiServer}. */
export class KubeApiServer {
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[] = [];
  /** PEM CA certificate clients must trust (TLS only). */
  readonly ca: string | undefined;
  readonly token: string | undefined;
  readonly host: string;
  private readonly server: http.Server;
  private readonly store: ObjectStore;
  private readonly sockets = new Set<net.Socket>();
  private readonly watchers = new Set<Watcher>();
  private readonly stalled = new Set<http.ServerResponse>();
  private readonly snapshots = new Map<string, Snapshot>();
  private faults: Fault[] = [];
  private snapshotCounter = 0;
  private boundPort = 0;
  private listening = false;

  /** @internal use {@link startKubeApiServer} */
  constructor(options: KubeApiServerOptions) {
    this.host = options.host ?? '127.0.0.1';
    this.token = options.token;
    this.store = new ObjectStore(options.resources ?? defaultResources, (event) => this.broadcast(event));
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => this.handle(req, res);
    if (options.tls) {
      const pair = testTlsPair();
      this.ca = pair.cert;
      this.server = https.createServer({ cert: pair.cert, key: pair.key }, handler);
    } else {
      this.ca = undefined;
      this.server = http.createServer(handler);
    }
    this.server.on('connection', (socket: net.Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** @internal */
  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.server.once('error', onError);
      this.server.listen(port, this.host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    const address = this.server.address();
    if (address && typeof address === 'object') this.boundPort = address.port;
    this.listening = true;
  }

  get port(): number {
    return this.boundPort;
  }

  /** `http://127.0.0.1:PORT` or `https://...`. */
  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `${this.ca !== undefined ? 'https' : 'http'}://${host}:${this.boundPort}`;
  }

  /** The current global resourceVersion. */
  get resourceVersion(): string {
    return String(this.store.rv);
  }

  /** Open watch streams (silenced ones included). */
  get watchCount(): number {
    return this.watchers.size;
  }

  /**
   * How many lists (first pages only: a paged list counts once) or watches were requested, per
   * {@link selectionKey}. Shows whether clients that want the same resource and selector share
   * one list+watch: `{ '/api/v1/services': 1 }`.
   */
  requestCounts(verb: 'list' | 'watch'): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.requests) {
      if (r.verb !== verb || (verb === 'list' && r.query['continue'] !== undefined)) continue;
      const key = selectionKey(r.path, r.query);
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  /**
   * How the lists were paged, per {@link selectionKey}: `lists` first pages (requests without a
   * continue token), `unlimited` those of them without a `limit` (the whole list in one
   * response), `continued` requests for a next page, `expired` continue tokens answered `410
   * Expired`. A client that pages as client-go's reflector does shows `unlimited: 0`, and
   * `continued` as many as its lists had pages after the first.
   */
  pageCounts(): Record<string, PageCounts> {
    const counts: Record<string, PageCounts> = {};
    for (const r of this.requests) {
      if (r.verb !== 'list') continue;
      const key = selectionKey(r.path, r.query);
      const count = (counts[key] ??= { lists: 0, unlimited: 0, continued: 0, expired: 0 });
      if (r.query['continue'] === undefined || r.query['continue'] === '') {
        count.lists++;
        if (!(Number(r.query['limit'] ?? '0') > 0)) count.unlimited++;
      } else {
        count.continued++;
        if (r.status === 410) count.expired++;
      }
    }
    return counts;
  }

  /** Watch streams open now (silenced ones included), per {@link selectionKey}. */
  openWatches(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const w of this.watchers) counts[w.selection] = (counts[w.selection] ?? 0) + 1;
    return counts;
  }

  // ---- the object store ----

  /** Creates or replaces an object and notifies watches; returns the stored copy. */
  apply(obj: ApiObject): ApiObject {
    return this.store.apply(obj);
  }

  /** Deletes an object (apiVersion, kind, metadata.name/namespace); false if it did not exist. */
  delete(obj: Pick<ApiObject, 'apiVersion' | 'kind'> & { metadata: Pick<ApiObjectMeta, 'name' | 'namespace'> }): boolean {
    return this.store.delete(obj);
  }

  /** Current objects, optionally of one resource, sorted by namespace/name. */
  objects(resource?: Pick<ApiResource, 'group' | 'version' | 'plural'>): ApiObject[] {
    return this.store.list(resource ? resourceKey(resource.group, resource.version, resource.plural) : undefined);
  }

  /** Starts serving a resource (a CRD being installed). */
  serve(resource: ApiResource): void {
    this.store.serve(resource);
  }

  /** Stops serving a resource: its requests get 404 and its open watches end. */
  unserve(resource: Pick<ApiResource, 'group' | 'version' | 'plural'>): void {
    const key = resourceKey(resource.group, resource.version, resource.plural);
    this.store.unserve(resource.group, resource.version, resource.plural);
    for (const w of this.watchers) if (w.key === key) w.res.end();
  }

  /** Advances the global resourceVersion as writes to unwatched resources would. */
  bumpResourceVersion(by = 1): string {
    return String(this.store.bump(by));
  }

  /**
   * Forgets the event history: watches from a resourceVersion below the current one get a
   * `410 Gone` ERROR event, and list continue tokens expire.
   */
  compact(): void {
    this.store.compact();
    this.snapshots.clear();
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watch that allowed bookmarks. */
  bookmark(): number {
    let sent = 0;
    for (const w of this.watchers) {
      if (!w.bookmarks || w.silenced) continue;
      this.writeEvent(w, 'BOOKMARK', this.bookmarkObject(w.resource));
      sent++;
    }
    return sent;
  }

  // ---- fault injection ----

  /** Answers the next `count` matching requests with `status` and a Status body. */
  failNext(status: number, options: { count?: number; match?: RequestMatch; message?: string } = {}): void {
    this.faults.push({ kind: 'status', status, message: options.message ?? `injected failure ${status}`, match: options.match ?? 'any', remaining: options.count ?? 1 });
  }

  /**
   * Accepts the next `count` matching requests and answers nothing (not even headers): forever,
   * or for `ms`, after which each is served as usual (a slow etcd, an overloaded API server).
   */
  stallNext(options: { count?: number; match?: RequestMatch; ms?: number } = {}): void {
    this.faults.push({ kind: 'stall', status: 0, message: '', match: options.match ?? 'any', remaining: options.count ?? 1, ...(options.ms !== undefined ? { stallMs: options.ms } : {}) });
  }

  /** Removes pending faults. */
  clearFaults(): void {
    this.faults = [];
  }

  /** Ends every open watch cleanly, as its `timeoutSeconds` would (no bookmark). */
  endWatches(): number {
    const count = this.watchers.size;
    for (const w of this.watchers) {
      if (w.timer) clearTimeout(w.timer);
      w.res.end();
    }
    this.watchers.clear();
    return count;
  }

  /**
   * Sends every open watch an ERROR event with a Status of `code` and ends it, as the API
   * server does for a watch it cannot continue (410 when the watch cache lost the history).
   */
  errorWatches(code: number, message = `injected watch error ${code}`): number {
    const count = this.watchers.size;
    for (const w of this.watchers) {
      if (w.timer) clearTimeout(w.timer);
      this.writeEvent(w, 'ERROR', apiStatus(code, message));
      w.res.end();
    }
    this.watchers.clear();
    return count;
  }

  /**
   * Cuts every open watch in the middle of an event: the first half of an event line, then a
   * TCP reset (a load balancer or API server dying mid-write).
   */
  breakWatches(): number {
    const count = this.watchers.size;
    for (const w of this.watchers) {
      if (w.timer) clearTimeout(w.timer);
      const line = JSON.stringify({ type: 'MODIFIED', object: this.bookmarkObject(w.resource) });
      const socket = w.res.socket;
      // The half line handed to the kernel first, then the reset: a torn event, not a clean end.
      w.res.write(line.slice(0, line.length >> 1), () => setImmediate(() => socket?.resetAndDestroy()));
    }
    this.watchers.clear();
    return count;
  }

  /** Keeps every open watch connected but sends it nothing more: a silent, half-dead connection. */
  silenceWatches(): number {
    for (const w of this.watchers) w.silenced = true;
    return this.watchers.size;
  }

  /**
   * Resets every connection (TCP RST), as a crashing API server or a load balancer does; one
   * whose client has hung up and that is already closing its own side just closes. Node 20
   * cannot reset a socket while its shutdown is in flight (libuv refuses), yet marks the
   * socket closing anyway: its handle then never closes, and the process spins at 100 % CPU
   * when it exits, waiting for it (caught in the stock-Corefile test, whose clients are killed).
   */
  dropConnections(): void {
    for (const socket of this.sockets) {
      if (!socket.writableEnded && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
    }
    this.watchers.clear();
    this.stalled.clear();
  }

  /** Stops listening and resets every connection; {@link restart} listens on the same port. */
  async stop(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.dropConnections();
    await closed;
  }

  /**
   * Listens again on the same port, keeping the store. `newResourceVersions`: the cluster came
   * back with another numbering (etcd restored from a backup, or replaced): every object gets a
   * fresh resourceVersion counted from `newResourceVersions`, the history is forgotten, and a
   * watch from any earlier version gets `410 Gone` (an older one) or "Too large resource
   * version" (one ahead of the new numbering).
   */
  async restart(options: { newResourceVersions?: number } = {}): Promise<void> {
    if (this.listening) return;
    if (options.newResourceVersions !== undefined) {
      this.store.renumber(options.newResourceVersions);
      this.snapshots.clear();
    }
    await this.listen(this.boundPort);
  }

  async close(): Promise<void> {
    for (const w of this.watchers) if (w.timer) clearTimeout(w.timer);
    await this.stop();
  }

  // ---- request handling ----

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const query = Object.fromEntries(url.searchParams);
    const route = parsePath(url.pathname);
    const isWatch = query['watch'] === '1' || query['watch'] === 'true';
    const verb = route === undefined ? 'other' : route.name !== undefined ? 'get' : isWatch ? 'watch' : 'list';
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      verb,
      at: Date.now(),
      ...(route ? { resource: route.plural } : {}),
      ...(req.headers.authorization !== undefined ? { authorization: req.headers.authorization } : {}),
    };
    this.requests.push(record);

    if (this.token !== undefined && req.headers.authorization !== `Bearer ${this.token}`) {
      this.sendStatus(res, record, 401, 'Unauthorized');
      return;
    }
    const fault = this.takeFault(record);
    if (fault?.kind === 'stall') {
      record.status = 'stalled';
      this.stalled.add(res);
      if (fault.stallMs === undefined) {
        res.on('close', () => this.stalled.delete(res));
        return;
      }
      const timer = setTimeout(() => {
        this.stalled.delete(res);
        if (!res.destroyed) this.answer(req, res, record, route, query);
      }, fault.stallMs);
      res.on('close', () => {
        clearTimeout(timer);
        this.stalled.delete(res);
      });
      return;
    }
    if (fault) {
      this.sendStatus(res, record, fault.status, fault.message);
      return;
    }
    this.answer(req, res, record, route, query);
  }

  /** Answers a request that no fault stopped. */
  private answer(req: http.IncomingMessage, res: http.ServerResponse, record: RecordedRequest, route: Route | undefined, query: Record<string, string>): void {
    const { verb } = record;
    if (req.method !== 'GET') {
      this.sendStatus(res, record, 405, `method ${req.method} is not supported by the test API server`);
      return;
    }
    const resource = route ? this.store.resource(route.key) : undefined;
    if (!route || !resource) {
      this.sendStatus(res, record, 404, 'the server could not find the requested resource');
      return;
    }
    const namespace = resource.namespaced === false ? undefined : route.namespace;
    let selector: LabelSelector;
    let fields: FieldSelector;
    try {
      selector = parseLabelSelector(query['labelSelector'] ?? null);
      fields = parseFieldSelector(query['fieldSelector'] ?? null);
    } catch (err) {
      this.sendStatus(res, record, 400, errorMessage(err));
      return;
    }
    if (verb === 'get') this.get(res, record, route, resource, namespace);
    else if (verb === 'watch') this.watch(res, record, route.key, resource, namespace, selector, fields, query);
    else this.list(res, record, route.key, resource, namespace, selector, fields, query);
  }

  private takeFault(record: RecordedRequest): Fault | undefined {
    const fault = this.faults.find((f) => f.remaining > 0 && matches(f.match, record));
    if (!fault) return undefined;
    fault.remaining--;
    this.faults = this.faults.filter((f) => f.remaining > 0);
    return fault;
  }

  private sendJson(res: http.ServerResponse, record: RecordedRequest, status: number, body: unknown): void {
    record.status = status;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  private sendStatus(res: http.ServerResponse, record: RecordedRequest, code: number, message: string): void {
    this.sendJson(res, record, code, apiStatus(code, message));
  }

  private get(res: http.ServerResponse, record: RecordedRequest, route: Route, resource: ApiResource, namespace: string | undefined): void {
    const obj = this.store.get(route.key, namespace, route.name ?? '');
    if (!obj) {
      this.sendStatus(res, record, 404, `${resource.plural} "${route.name ?? ''}" not found`);
      return;
    }
    this.sendJson(res, record, 200, obj);
  }

  private list(
    res: http.ServerResponse,
    record: RecordedRequest,
    key: string,
    resource: ApiResource,
    namespace: string | undefined,
    selector: LabelSelector,
    fields: FieldSelector,
    query: Record<string, string>,
  ): void {
    const rvParam = query['resourceVersion'];
    if (query['resourceVersionMatch'] === 'Exact' && rvParam !== undefined && Number(rvParam) < this.store.compactedRv) {
      this.sendStatus(res, record, 410, `The resourceVersion for the provided list is too old.`);
      return;
    }
    let snapshot: Snapshot;
    let offset = 0;
    const token = query['continue'];
    if (token !== undefined && token !== '') {
      const [id = '', at = '0'] = Buffer.from(token, 'base64url').toString().split(':');
      const found = this.snapshots.get(id);
      if (!found) {
        this.sendStatus(res, record, 410, 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
        return;
      }
      snapshot = found;
      offset = Number(at);
    } else {
      snapshot = { rv: this.store.rv, items: this.store.list(key, namespace, selector).filter(fields) };
    }
    const limit = Number(query['limit'] ?? '0');
    let items = snapshot.items.slice(offset);
    const metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } = { resourceVersion: String(snapshot.rv) };
    if (limit > 0 && items.length > limit) {
      items = items.slice(0, limit);
      let id = [...this.snapshots].find(([, s]) => s === snapshot)?.[0];
      if (id === undefined) {
        id = String(++this.snapshotCounter);
        this.snapshots.set(id, snapshot);
      }
      metadata.continue = Buffer.from(`${id}:${offset + limit}`).toString('base64url');
      metadata.remainingItemCount = snapshot.items.length - offset - limit;
    }
    if (resource.builtin) {
      items = items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest as ApiObject);
    }
    this.sendJson(res, record, 200, { kind: `${resource.kind}List`, apiVersion: apiVersionOf(resource), metadata, items });
  }

  private watch(
    res: http.ServerResponse,
    record: RecordedRequest,
    key: string,
    resource: ApiResource,
    namespace: string | undefined,
    selector: LabelSelector,
    fields: FieldSelector,
    query: Record<string, string>,
  ): void {
    record.status = 200;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    // Without this the headers wait for the first event, and clients wait for the headers.
    res.flushHeaders();
    const watcher: Watcher = {
      key,
      resource,
      ...(namespace !== undefined ? { namespace } : {}),
      selector,
      fields,
      selection: selectionKey(record.path, query),
      bookmarks: query['allowWatchBookmarks'] === 'true' || query['allowWatchBookmarks'] === '1',
      res,
      silenced: false,
    };
    const rvParam = query['resourceVersion'] ?? '';
    if (rvParam === '' || rvParam === '0') {
      // "Start at most recent": synthetic ADDED events for the current state, then changes.
      for (const obj of this.store.list(key, namespace, selector).filter(fields)) this.writeEvent(watcher, 'ADDED', obj);
    } else {
      const from = Number(rvParam);
      if (!Number.isFinite(from) || from < this.store.compactedRv) {
        // The real API server answers 200 and then an ERROR event carrying a 410 Status.
        this.writeEvent(watcher, 'ERROR', apiStatus(410, `too old resource version: ${rvParam} (${this.store.compactedRv})`));
        res.end();
        return;
      }
      if (from > this.store.rv) {
        // The watch cache waits (3 s) for a version it has not seen, then gives up with a 504
        // whose cause is ResourceVersionTooLarge (apiserver storage/cacher, errors.go).
        this.writeEvent(watcher, 'ERROR', { ...apiStatus(504, `Too large resource version: ${rvParam}, current: ${this.store.rv}`), details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 } });
        res.end();
        return;
      }
      for (const event of this.store.eventsSince(key, from)) this.deliver(watcher, event);
    }
    this.watchers.add(watcher);
    res.on('close', () => {
      if (watcher.timer) clearTimeout(watcher.timer);
      this.watchers.delete(watcher);
    });
    const timeoutSeconds = Number(query['timeoutSeconds'] ?? '0');
    if (timeoutSeconds > 0) {
      watcher.timer = setTimeout(() => {
        // Like the API server, a watch that allowed bookmarks gets one just before it times out.
        if (watcher.bookmarks && !watcher.silenced) this.writeEvent(watcher, 'BOOKMARK', this.bookmarkObject(resource));
        this.watchers.delete(watcher);
        res.end();
      }, timeoutSeconds * 1000);
    }
  }

  private bookmarkObject(resource: ApiResource): object {
    return { kind: resource.kind, apiVersion: apiVersionOf(resource), metadata: { resourceVersion: String(this.store.rv) } };
  }

  private broadcast(event: StoredEvent): void {
    for (const w of this.watchers) if (w.key === event.key && !w.silenced) this.deliver(w, event);
  }

  /** Applies the watch's namespace and selectors, turning label and field changes into ADDED/DELETED. */
  private deliver(w: Watcher, event: StoredEvent): void {
    if (w.namespace !== undefined && event.object.metadata.namespace !== w.namespace) return;
    const selected = (obj: ApiObject): boolean => w.selector(obj.metadata.labels) && w.fields(obj);
    const now = selected(event.object);
    if (event.type === 'MODIFIED' && event.previous) {
      const was = selected(event.previous);
      if (was && now) this.writeEvent(w, 'MODIFIED', event.object);
      else if (now) this.writeEvent(w, 'ADDED', event.object);
      else if (was) this.writeEvent(w, 'DELETED', event.object);
      return;
    }
    if (now) this.writeEvent(w, event.type, event.object);
  }

  private writeEvent(w: Watcher, type: string, object: unknown): void {
    if (w.res.writableEnded || w.res.destroyed) return;
    w.res.write(JSON.stringify({ type, object }) + '\n');
  }
}

/** Starts a test API server on a loopback port chosen by the OS. */
export async function startKubeApiServer(options: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const server = new KubeApiServer(options);
  await server.listen(0);
  return server;
}
