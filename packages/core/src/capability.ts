/**
 * How plugins cooperate without importing each other: typed capability tokens. A token names
 * something a plugin offers (a zone to transfer, a readiness probe, listen addresses) and where
 * it is found: in the server block of the plugin that asks, or anywhere in the configuration.
 * One plugin offers with `c.provide(token, value)` in its setup; another finds every offer in
 * scope with `c.use(token)`. Core defines the tokens its own plugins share and provides some
 * itself (the block's handler names and listeners); a plugin package may define its own.
 *
 *   file:      c.provide(Transferers, zones)      ─┐ the block's list, directive order
 *   transfer:  c.use(Transferers)   ◄──────────────┘ complete once setup is over (onStartup)
 *
 * Process-wide state kept across reloads (one HTTP listener per address, metric objects) has
 * typed keys of its own: {@link defineShared} and `c.shared(key, create)`.
 */
import type { Answer } from 'dns-packet';
import type { Request } from './request.js';

/** Where a capability's providers are found: the asking plugin's server block, or the whole configuration. */
export type CapabilityScope = 'block' | 'configuration';

/**
 * A typed token for something plugins provide and use. Compare tokens by identity: two
 * definitions with one name are two capabilities.
 */
export interface Capability<T> {
  /** What it is, for errors and logs: `transfer`, `readiness`. */
  readonly name: string;
  /** Where `use` finds providers; it belongs to the token, not to the call. */
  readonly scope: CapabilityScope;
  /** Type only, never set: what providers give. */
  readonly type?: T;
}

/**
 * Defines a capability. Define it once, at module level, where both sides can import it (core
 * for first-party pairs, a plugin's own package for what it offers others).
 *
 * @example
 * // in a shared module
 * export interface Greeter { greet(name: string): string }
 * export const Greeters = defineCapability<Greeter>('greeter', 'block');
 * // in a provider's setup
 * c.provide(Greeters, { greet: (name) => `hello ${name}` });
 * // in the user's setup: every greeter of its block, from onStartup on
 * const greeters = c.use(Greeters);
 */
export function defineCapability<T>(name: string, scope: CapabilityScope): Capability<T> {
  if (typeof name !== 'string' || name === '') throw new TypeError('a capability needs a name');
  if (scope !== 'block' && scope !== 'configuration') throw new TypeError(`capability '${name}': scope must be 'block' or 'configuration', got '${String(scope)}'`);
  return Object.freeze({ name, scope });
}

/** A typed key of process-wide state: what `c.shared(key, create)` creates once and keeps across reloads. */
export interface SharedKey<T> {
  /** What it holds, for errors and logs. */
  readonly name: string;
  /** Type only, never set: the state's type. */
  readonly type?: T;
}

/**
 * Defines a key for process-wide state. Keys compare by identity, so no two plugins can collide
 * on a name.
 *
 * @example
 * const Listeners = defineShared<HttpEndpoints>('prometheus/listeners');
 * const endpoints = c.shared(Listeners, () => new HttpEndpoints());
 */
export function defineShared<T>(name: string): SharedKey<T> {
  if (typeof name !== 'string' || name === '') throw new TypeError('a shared key needs a name');
  return Object.freeze({ name });
}

/** The offers of one scope (a server block or a configuration), one list per token in provide order. */
export class CapabilityStore {
  private readonly lists = new Map<Capability<unknown>, unknown[]>();

  /** The live list of `token`'s offers: later offers show up in the same array. */
  list<T>(token: Capability<T>): T[] {
    let list = this.lists.get(token);
    if (list === undefined) {
      list = [];
      this.lists.set(token, list);
    }
    return list as T[];
  }
}

/** A plugin that can tell whether it is ready to serve (caches synced, a zone loaded). */
export interface ReadinessProbe {
  /** The directive, which *ready* lists while it is not ready. */
  readonly name: string;
  ready(): boolean;
}

/**
 * A plugin that owns zone data and hands it out for zone transfers: CoreDNS's
 * `transfer.Transferer` (`plugin/transfer/transfer.go`).
 */
export interface Transferer {
  /** The directive offering it, for logs. */
  readonly name: string;
  /**
   * The records of `zone` (lower-case, fully qualified) in batches, or null when this plugin is
   * not authoritative for exactly that zone (CoreDNS's `ErrNotAuthoritative`), so the next
   * transferer is asked. `serial` 0 asks for AXFR: the SOA first, every record, the SOA again
   * last. Another serial is an IXFR: when it equals the zone's serial only the SOA is given,
   * otherwise the whole zone as for AXFR (the AXFR fallback of RFC 1995 §4).
   */
  transfer(zone: string, serial: number): Iterable<readonly Answer[]> | AsyncIterable<readonly Answer[]> | null;
  /**
   * Registers `notify`, called with a zone's name when it is loaded at startup or reloaded with a
   * new serial, so *transfer* sends NOTIFY (RFC 1996) to the secondaries.
   */
  onZoneChange?(notify: (zone: string) => void): void;
}

/**
 * Readiness probes of the whole configuration (CoreDNS's `ready.Readiness`): a plugin that needs
 * time before it answers correctly provides one; *ready* answers `/ready` with 200 once all of
 * them are true and lists the names of the others.
 *
 * @example
 * c.provide(ReadinessProbes, { name: c.directive, ready: () => source.synced });
 */
export const ReadinessProbes: Capability<ReadinessProbe> = defineCapability<ReadinessProbe>('readiness', 'configuration');

/**
 * Zone data of the server block offered for zone transfers: *file* provides its zones, and
 * *transfer* asks each transferer of its block in directive order until one is authoritative.
 */
export const Transferers: Capability<Transferer> = defineCapability<Transferer>('transfer', 'block');

/**
 * Addresses the server block listens on instead of every address (the *bind* plugin), one
 * offer per address; core reads them when it plans the listeners.
 */
export const ListenAddresses: Capability<string> = defineCapability<string>('bind', 'block');

/**
 * Provided by core: the directives of the server block that added a handler, in chain order
 * (CoreDNS's `coredns_plugin_enabled` rows). Complete from `onStartup` on.
 */
export const HandlerNames: Capability<string> = defineCapability<string>('handlers', 'block');

/**
 * Provided by core: the listeners serving the server block, as CoreDNS's metrics `server` label
 * (`dns://:53`, `tls://127.0.0.1:853`). Known once the listeners are planned: from `onStartup` on.
 */
export const Servers: Capability<string> = defineCapability<string>('servers', 'block');

/**
 * The metadata of one query (CoreDNS's `plugin/metadata`): string values under labels named
 * `plugin/name`, published by the plugins of the server block and read by others (*log*'s
 * `{/label}`, *rewrite*'s `{label}`, *template*'s `.Meta`, *view*'s `metadata()`). A query has
 * one only in a server block with the *metadata* plugin: `Request.metadata` is undefined
 * elsewhere, so a plugin that publishes or reads metadata costs nothing there.
 */
export interface QueryMetadata {
  /**
   * The value under `label`, or undefined when no plugin published it for this query (CoreDNS's
   * `ValueFunc` returning nil). A value is computed on its first read and kept for the query.
   */
  get(label: string): string | undefined;
  /**
   * Publishes `label` for the rest of the query, replacing any earlier value (CoreDNS's
   * `SetValueFunc`): a string, or a function computing it on first read.
   */
  set(label: string, value: string | (() => string)): void;
}

/**
 * A plugin that publishes metadata about each query of its block (CoreDNS's `metadata.Provider`):
 * *kubernetes* (`kubernetes/namespace`, ...), *view* (`view/name`).
 */
export interface MetadataProvider {
  /**
   * The value this plugin publishes under `label` for `req`, or undefined when it publishes none.
   * Asked only when a plugin reads the label, at most once per query, with the query as it
   * reached the server block (before *rewrite* changed it). Keep it quick and synchronous.
   */
  metadata(req: Request, label: string): string | undefined;
}

/**
 * Publishers of metadata in the server block, asked in reverse directive order on a label's
 * first read (the later provider wins, as the later `SetValueFunc` does in CoreDNS). Only
 * queries in the zones of the block's *metadata* plugin ask them.
 *
 * @example
 * c.provide(MetadataProviders, { metadata: (req, label) => (label === 'hello/client' ? req.remoteAddress : undefined) });
 */
export const MetadataProviders: Capability<MetadataProvider> = defineCapability<MetadataProvider>('metadata', 'block');

/**
 * What gives each query routed to a server block its {@link QueryMetadata} (CoreDNS's
 * `dnsserver.MetadataCollector`): the *metadata* plugin.
 */
export interface MetadataCollector {
  /** The metadata of a query this block is about to see: before its view's filter and chain run. */
  collect(req: Request): QueryMetadata;
}

/**
 * Provided by the *metadata* plugin; core collects each query's metadata through the block's
 * first collector before the view's filter and the chain, and blocks without one pay nothing.
 */
export const MetadataCollectors: Capability<MetadataCollector> = defineCapability<MetadataCollector>('metadata-collector', 'block');

/**
 * A condition on queries that selects the server block among the blocks sharing its zone and
 * port (CoreDNS's `dnsserver.Viewer`): the first block, in Corefile order, whose view passes a
 * query (or that has none) serves it; when none does, the query goes on to the next less
 * specific zone.
 */
export interface View {
  /** The view's name: the `view` label of the block's metrics, and the metadata `view/name`. */
  readonly name: string;
  /**
   * Whether the block serves `req`. Called before the block's chain, after its metadata was
   * collected; synchronous, and cheap: it runs for every query of the zone that reaches it.
   */
  filter(req: Request): boolean;
}

/**
 * The server block's view (the *view* plugin): at most one per block. Core routes by it; plugins
 * with a `view` metric label read its name from `onStartup` on (or in their handler factory).
 */
export const Views: Capability<View> = defineCapability<View>('view', 'block');

/**
 * A name a Kubernetes Service has outside the cluster, or an endpoint of a headless one: CoreDNS's
 * `msg.Service` as the kubernetes plugin's `External` returns it to *k8s_external*.
 */
export interface ExternalRecord {
  /** An IP address, or a load balancer's hostname. */
  readonly host: string;
  /** The port; -1 for a service without ports (no SRV record). */
  readonly port: number;
  /** The record's name before the zone, lower case, dot-terminated: `svc.ns.`, `ep.svc.ns.`. */
  readonly key: string;
}

/** What one external name holds: its records, or that it does not exist. */
export interface ExternalLookup {
  readonly records: readonly ExternalRecord[];
  /** NXDOMAIN rather than NODATA when `records` is empty. */
  readonly nameError: boolean;
}

/**
 * The kubernetes plugin's view of Services from outside the cluster: CoreDNS's
 * `external.Externaler` (`plugin/k8s_external/external.go`), which *k8s_external* reads. Zones
 * and names are lower case and fully qualified.
 */
export interface ServiceExternals {
  /** The directive offering it. */
  readonly name: string;
  /** Its own record TTL, which CoreDNS gives the SRV and CNAME records *k8s_external* builds. */
  readonly ttl: number;
  /**
   * `qname` under `zone` (neither the apex nor the `apex` label's names): the external IPs, load
   * balancer ingresses and ports of `svc.ns`, `_port._proto.svc.ns` and, with `headless`, the
   * endpoints of headless services. For a PTR question in a reverse zone, `host` is `svc.ns` of
   * the services with that external address.
   */
  external(qname: string, zone: string, qtype: number, headless: boolean): ExternalLookup;
  /** The nameserver addresses (CoreDNS's `ExternalAddress`): `key` is the owner's prefix on `zone`. */
  nameservers(zone: string, headless: boolean): readonly ExternalRecord[];
  /** The SOA serial: Unix seconds of the last change to external records. */
  serial(): number;
}

/**
 * Services as seen from outside the cluster, offered by *kubernetes* to *k8s_external* of its
 * server block (CoreDNS finds the kubernetes handler of the block and asserts `Externaler`).
 */
export const KubernetesExternals: Capability<ServiceExternals> = defineCapability<ServiceExternals>('kubernetes/external', 'block');

/**
 * A plugin that knows a client's DNS search path: CoreDNS's `autopath.AutoPather`. `search`
 * gives the domains to try for this query's client, in order, ending with '' (the name as
 * asked), or null when no search path applies (not its zone, an unknown client).
 */
export interface AutoPather {
  /** The directive offering it: `autopath @NAME` picks it. */
  readonly name: string;
  search(req: Request): readonly string[] | null;
}

/** Search paths per client, offered by *kubernetes* (`pods verified`) to *autopath* `@kubernetes`. */
export const AutoPathers: Capability<AutoPather> = defineCapability<AutoPather>('autopath', 'block');

/** The tokens only core provides: a plugin offering one would corrupt what core reports. */
export const coreProvided: ReadonlySet<Capability<unknown>> = new Set<Capability<unknown>>([HandlerNames, Servers]);
