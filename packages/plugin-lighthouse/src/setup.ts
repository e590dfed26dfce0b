/**
 * lighthouse: parsing `lighthouse [ZONES...] { ... }` (docs/compatibility.md, "Options" plus the connection and source
 * options) and wiring the handler, the shared source and the answer table. Setup starts nothing:
 * the source is acquired in `onStartup`, so `foghorn -validate` never touches a cluster or disk.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { checkDirectory, defineShared, errOnce, fallthroughZones, integerInRange, readableFile, ReadinessProbes, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { informerRegistry } from '@foghorn/kube';
import type { KubeConnection } from '@foghorn/kube';
import { AnswerTable } from './answers.js';
import type { Families } from './answers.js';
import { Lighthouse } from './handler.js';
import type { HandlerState } from './handler.js';
import { KubeSource } from './kube-source.js';
import { ManifestsSource } from './manifests.js';
import { LighthouseMetrics } from './metrics.js';
import { ProblemLog } from './problems.js';
import { SourceRegistry } from './source.js';
import type { Lease, Source } from './source.js';
import { ServiceStore } from './store.js';

/** Where the objects come from. */
export type SourceOptions =
  | { readonly kind: 'kubernetes'; readonly connection: KubeConnection }
  | { readonly kind: 'manifests'; readonly dir: string };

/** One block's `lighthouse` configuration. */
export interface LighthouseOptions {
  /** Zones to answer for; empty = the server block's zones. Reverse zones enable PTR answers. */
  readonly zones: readonly string[];
  /** `fallthrough [ZONES...]`: null when off, `['.']` for every name. */
  readonly fallthrough: readonly string[] | null;
  /** TTL of every record, 0..3600. */
  readonly ttlSeconds: number;
  readonly source: SourceOptions;
  /** `cluster_id`, else `$SUBMARINER_CLUSTERID`; '' when unknown (no local preference until a Gateway says). */
  readonly clusterId: string;
  /** From `cluster_cidr`, else `$SUBMARINER_CLUSTERCIDR`; IPv4 only when neither is set. */
  readonly families: Families;
}

/** Lighthouse's default answer TTL (PR #296). */
export const defaultTtlSeconds = 5;
export const maxTtlSeconds = 3600;

/** Parses the block's `lighthouse` (once per block). Pure apart from reading `env`. */
export function parseLighthouse(c: Controller, env: NodeJS.ProcessEnv = process.env): LighthouseOptions {
  let zones: string[] = [];
  let fallthrough: string[] | null = null;
  let ttlSeconds = defaultTtlSeconds;
  let kubeconfig: { path: string; context?: string } | undefined;
  let endpoint: string | undefined;
  let manifests: string | undefined;
  let clusterId: string | undefined;
  let cidrs: string[] | undefined;
  let seen = 0;
  while (c.next()) {
    if (seen++ > 0) throw errOnce(c);
    const args = c.remainingArgs();
    // No zones here means the server block's, resolved in setup (the options keep "none given").
    zones = args.length === 0 ? [] : zonesFromArgs(c, args);
    while (c.nextBlock()) {
      const property = c.val();
      const argTokens = c.remainingArgTokens();
      const args = argTokens.map((token) => token.text);
      switch (property) {
        case 'fallthrough':
          fallthrough = fallthroughZones(c, args);
          break;
        case 'ttl': {
          if (args.length !== 1) throw c.argError();
          const text = args[0]!;
          ttlSeconds = integerInRange(c, text, 0, maxTtlSeconds, `ttl must be in range [0, ${maxTtlSeconds}]: ${text}`);
          break;
        }
        case 'kubeconfig':
          if (args.length < 1 || args.length > 2) throw c.argError();
          readableFile(argTokens[0]!, 'kubeconfig');
          kubeconfig = args[1] === undefined ? { path: args[0]! } : { path: args[0]!, context: args[1] };
          break;
        case 'endpoint':
          if (args.length !== 1) throw c.argError();
          if (!/^https?:\/\/[^\s/]+/.test(args[0]!)) throw c.error(`endpoint must be an http:// or https:// URL, got '${args[0]}'`);
          endpoint = args[0]!;
          break;
        case 'manifests':
          if (args.length !== 1) throw c.argError();
          checkDirectory(argTokens[0]!, 'manifests directory');
          manifests = args[0]!;
          break;
        case 'cluster_id':
          if (args.length !== 1) throw c.argError();
          if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)?$/.test(args[0]!)) {
            throw c.error(`cluster_id must be a DNS label (or two, 'name.registry'), got '${args[0]}'`);
          }
          clusterId = args[0]!;
          break;
        case 'cluster_cidr':
          if (args.length === 0) throw c.argError();
          for (const cidr of args) if (!isCidr(cidr)) throw c.error(`cluster_cidr must be CIDRs, got '${cidr}'`);
          cidrs = args;
          break;
        default:
          throw c.error(`unknown property '${property}'`);
      }
    }
  }
  if (manifests !== undefined && (kubeconfig !== undefined || endpoint !== undefined)) {
    throw c.error("manifests cannot be combined with 'kubeconfig' or 'endpoint': objects come from one source");
  }
  const source: SourceOptions =
    manifests !== undefined
      ? { kind: 'manifests', dir: manifests }
      : {
          kind: 'kubernetes',
          connection: {
            ...(kubeconfig ? { kubeconfig: kubeconfig.path } : {}),
            ...(kubeconfig?.context !== undefined ? { context: kubeconfig.context } : {}),
            ...(endpoint !== undefined ? { endpoint } : {}),
          },
        };
  const cidrList = cidrs ?? (env['SUBMARINER_CLUSTERCIDR'] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  return {
    zones,
    fallthrough,
    ttlSeconds,
    source,
    clusterId: clusterId ?? env['SUBMARINER_CLUSTERID'] ?? '',
    families: familiesOf(cidrList),
  };
}

/** docs/compatibility.md, "Options": each cluster CIDR adds its family; none means IPv4 only. */
export function familiesOf(cidrs: readonly string[]): Families {
  if (cidrs.length === 0) return { v4: true, v6: false };
  return { v4: cidrs.some((cidr) => !cidr.includes(':')), v6: cidrs.some((cidr) => cidr.includes(':')) };
}

function isCidr(text: string): boolean {
  const [address = '', bits, extra] = text.split('/');
  if (extra !== undefined || bits === undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(address);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

/** Key of a shared source: the same directory or connection and local cluster id share one. */
function sourceKey(options: LighthouseOptions): string {
  const where = options.source.kind === 'manifests' ? { dir: resolve(options.source.dir) } : options.source.connection;
  return JSON.stringify([options.source.kind, where, options.clusterId]);
}

/** Process-wide state: running sources and the metric cells. */
class PluginState {
  readonly sources = new SourceRegistry();
  readonly metrics: LighthouseMetrics;

  constructor(c: Controller) {
    this.metrics = new LighthouseMetrics(c.registry, this.sources);
  }
}

const PluginStateKey = defineShared<PluginState>('lighthouse');

export function setup(c: Controller): void {
  const options = parseLighthouse(c);
  const zones = options.zones.length > 0 ? options.zones : c.zones;
  const shared = c.shared(PluginStateKey, () => new PluginState(c));
  // @foghorn/kube's informers: shared with every block and plugin on the same connection.
  const informers = informerRegistry(c);
  const outcomes = shared.metrics.outcomes(zones.join(','));
  let lease: Lease | undefined;
  const state: HandlerState = { table: null, synced: () => lease?.source.synced ?? false, zones };
  c.addHandler((next) => new Lighthouse(state, options.fallthrough ?? [], outcomes, next));
  c.provide(ReadinessProbes, { name: c.directive, ready: () => state.synced() });
  c.onStartup(async () => {
    const create = (): Source => {
      const store = new ServiceStore(options.clusterId);
      const problems = new ProblemLog(c.log, shared.metrics.countInvalid);
      return options.source.kind === 'manifests'
        ? new ManifestsSource(resolve(options.source.dir), store, c.log, { problems })
        : new KubeSource(store, options.source.connection, c.log, informers, process.env, {}, problems);
    };
    lease = await shared.sources.acquire(sourceKey(options), create, c.log);
    const table = new AnswerTable(lease.source.store, {
      zones,
      ttlSeconds: options.ttlSeconds,
      families: options.families,
      servedCell: (cluster) => shared.metrics.servedCell(cluster),
    });
    table.open();
    state.table = table;
  });
  c.onShutdown(async () => {
    state.table?.close();
    await lease?.release();
    lease = undefined;
  });
}
