/**
 * kubernetes: wiring. Setup parses and registers; `onStartup` builds the index (or shares the one
 * the same options built: across blocks and reloads, indexes.ts), starts the watches (or reads the
 * manifests) and waits for the first sync up to `startup_timeout`, as CoreDNS does before its
 * listeners open; `onShutdown` releases the index, and the last release its watches.
 */
import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';
import { AutoPathers, definePlugin, defineShared, isSubdomain, KubernetesExternals, MetadataCollectors, MetadataProviders, ReadinessProbes, Servers } from '@foghorn/core';
import type { Controller, PluginDefinition } from '@foghorn/core';
import { informerRegistry } from '@foghorn/kube';
import type { InformerRegistry } from '@foghorn/kube';
import { AutoPathSearch, readResolvSearch } from './autopath.js';
import { Externals } from './external.js';
import { Kubernetes } from './handler.js';
import { IndexRegistry, indexKey } from './indexes.js';
import type { Index, IndexLease } from './indexes.js';
import type { HandlerState } from './handler.js';
import { ManifestsSource } from './manifests.js';
import { KubernetesMetadata } from './metadata.js';
import { KubernetesMetrics } from './metrics.js';
import { RestClientMetrics } from './rest-metrics.js';
import { parseKubernetes } from './options.js';
import type { KubernetesOptions } from './options.js';
import { Resolver } from './resolve.js';
import type { ZoneInfo } from './resolve.js';
import { LabelSelector } from './selector.js';
import { KubeSource } from './source.js';
import type { Source, WatchOptions } from './source.js';
import { ClusterStore } from './store.js';

/** What tests (and embedders) may replace. */
export interface PluginOverrides {
  /** The server's non-loopback addresses for NS records; default: CoreDNS's `boundIPs` rule. */
  readonly localIps?: () => readonly string[];
  /** Environment for the in-cluster connection and $KUBECONFIG. */
  readonly env?: NodeJS.ProcessEnv;
  /** Watch tuning for @foghorn/kube. */
  readonly watch?: WatchOptions;
  /** Debounce of the manifests directory watcher, ms. */
  readonly manifestsDebounceMs?: number;
  /** The informers; default the server's shared registry (`informerRegistry(c)`). */
  readonly informers?: InformerRegistry;
  /** The search domains autopath appends after the pod's; default those of /etc/resolv.conf. */
  readonly resolvSearch?: () => Promise<readonly string[]>;
}

/** How long startup waits between "waiting for Kubernetes API" lines (kubernetes.go `InitKubeCache`). */
const waitLogMs = 500;

/**
 * local.go `boundIPs`: without `bind`, every non-loopback interface address; with `bind` CoreDNS
 * parses the listen host as a CIDR, which a plain address is not, so none (kept as upstream does).
 */
function boundIps(c: Controller): string[] {
  const hosts = c.use(Servers).map((server) => /^dns:\/\/(\[.*\]|[^:]*):\d+$/.exec(server)?.[1] ?? '');
  if (hosts.length > 0 && hosts.every((host) => host !== '')) return [];
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const address of list ?? []) if (!address.internal) out.push(address.address.replace(/%.*$/, ''));
  }
  return out;
}

/** The zones longest first, so the first match is CoreDNS's `Zones.Matches`. */
function zoneInfos(options: KubernetesOptions): ZoneInfo[] {
  const unique = [...new Set(options.zones)];
  return unique
    .map((name) => ({ name, multicluster: options.multicluster.some((mc) => isSubdomain(name, mc)) }))
    .sort((a, b) => b.name.length - a.name.length);
}

/** The process's metric objects, shared by every block and kept across reloads. */
const MetricsKey = defineShared<KubernetesMetrics>('kubernetes/metrics');
const RestMetricsKey = defineShared<RestClientMetrics>('kubernetes/rest-metrics');
const IndexesKey = defineShared<IndexRegistry>('kubernetes/indexes');

/** The setup, with test overrides (clock, local addresses, watch tuning). */
export function setupWith(overrides: PluginOverrides = {}): (c: Controller) => void {
  return (c: Controller): void => {
    const options = parseKubernetes(c);
    const labels = options.labels === null ? null : LabelSelector.parse(options.labels);
    const namespaceLabels = options.namespaceLabels === null ? null : LabelSelector.parse(options.namespaceLabels);
    const metrics = c.shared(MetricsKey, () => new KubernetesMetrics(c.registry));
    const rest = c.shared(RestMetricsKey, () => new RestClientMetrics(metrics));
    const indexes = c.shared(IndexesKey, () => new IndexRegistry());
    let lease: IndexLease | undefined;
    let localIps: readonly string[] = [];
    const state: HandlerState = { store: null, resolver: null, synced: () => lease?.index.source.synced ?? false };
    const zones = zoneInfos(options);
    c.addHandler((next) => new Kubernetes(state, zones, options.fallthrough ?? [], options.ttl, next));
    c.provide(ReadinessProbes, { name: c.directive, ready: () => state.synced() });
    c.provide(MetadataProviders, new KubernetesMetadata(state, zones, options));
    // The block's *metadata*, if any: only then are pod labels worth their memory.
    const metadataCollected = c.use(MetadataCollectors);
    c.provide(KubernetesExternals, new Externals({ get store() { return state.store; }, get resolver() { return state.resolver; }, localIps: () => localIps }, options.ttl));
    const paths = new AutoPathSearch(options, zones);
    c.provide(AutoPathers, { name: c.directive, search: (req) => (state.store === null ? null : paths.of(state.store, req)) });
    c.onStartup(async () => {
      localIps = overrides.localIps?.() ?? boundIps(c);
      paths.setSearch(await (overrides.resolvSearch ?? readResolvSearch)());
      const create = (): Index => {
        let source: Source | undefined;
        const store: ClusterStore = new ClusterStore({
          labels,
          namespaceLabels,
          zonal: options.zonal,
          podNames: options.endpointPodNames,
          podLabels: metadataCollected.length > 0,
          // Observed and warned about once per server: under -workers only by the worker whose
          // source reports this change (source.ts), after its store took it in (so the service
          // below is as one process would see it).
          onSlice: (event) => {
            if (!source?.reporting) return;
            const index = event.slice.index;
            const found = event.multicluster ? store.imports.inIndex(index) : store.services.inIndex(index);
            const only = found.length === 1 ? found[0]! : null;
            metrics.recordSlice(event, only === null ? null : only.headless, c.log);
          },
        });
        let signal: () => void = () => {};
        const synced = new Promise<void>((resolveSynced) => (signal = resolveSynced));
        if (options.source.kind === 'manifests') {
          source = new ManifestsSource(resolve(options.source.dir), store, options, c.log, overrides.manifestsDebounceMs);
        } else {
          source = new KubeSource(store, options, options.source, overrides.informers ?? informerRegistry(c), c.log, overrides.env ?? process.env, overrides.watch ?? {}, () => signal(), (server) => rest.watch(server));
        }
        return { store, source, synced };
      };
      lease = await indexes.acquire(indexKey(options), create, c.log);
      const { store, source, synced } = lease.index;
      state.store = store;
      state.resolver = new Resolver(store, options, () => localIps);
      if (source.synced) return;
      let timer: NodeJS.Timeout | undefined;
      let ticker: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((done) => {
        timer = setTimeout(() => done(true), options.startupTimeoutMs);
        ticker = setInterval(() => c.log.info('waiting for Kubernetes API before starting server'), waitLogMs);
      });
      const late = await Promise.race([synced.then(() => false), timedOut]);
      clearTimeout(timer);
      clearInterval(ticker);
      if (late) c.log.warning('starting server with unsynced Kubernetes API');
    });
    c.onShutdown(async () => {
      const running = lease;
      lease = undefined;
      await running?.release();
    });
  };
}

/** Parses the directive, watches (or reads manifests) from startup on, and adds the handler. */
export const setup: (c: Controller) => void = setupWith();

/** The plugin with test overrides; the package's default export is `createKubernetesPlugin()`. */
export function createKubernetesPlugin(overrides: PluginOverrides = {}): PluginDefinition {
  return definePlugin({ name: 'kubernetes', setup: setupWith(overrides) });
}

export { parseKubernetes } from './options.js';
