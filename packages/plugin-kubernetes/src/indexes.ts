/**
 * One index (store and source) per set of the options it is built from, shared by every server
 * block that has them and kept across reloads: the new configuration's startup acquires it before
 * the old one's shutdown releases it, so a reload that leaves those options as they were neither
 * relists nor holds the cluster twice. @foghorn/kube keeps no copy of the objects to replay to
 * a new store (registry.ts), so a new store fills from a relist, as CoreDNS's does on a reload.
 */
import type { Logger } from '@foghorn/core';
import type { KubernetesOptions } from './options.js';
import type { Source } from './source.js';
import type { ClusterStore } from './store.js';

/** A store and the source that feeds it. */
export interface Index {
  readonly store: ClusterStore;
  readonly source: Source;
  /** Resolves once every resource delivered its first complete list. */
  readonly synced: Promise<void>;
}

interface Shared {
  readonly index: Index;
  users: number;
  readonly started: Promise<void>;
}

/** An index held by one configuration; release it in `onShutdown`. */
export interface IndexLease {
  readonly index: Index;
  release(): Promise<void>;
}

/**
 * What an index depends on: where the objects come from and which of them it keeps. Options that
 * only shape answers (zones, ttl, fallthrough, pods mode apart from `verified`...) are not part of
 * it: blocks and configurations that differ there share one index.
 */
export function indexKey(options: KubernetesOptions): string {
  return JSON.stringify([
    options.source,
    options.labels,
    options.namespaceLabels,
    options.zonal,
    options.endpointPodNames,
    options.noEndpoints,
    options.pods === 'verified',
    options.multicluster.length > 0,
  ]);
}

/** Process-wide: the indexes in use, by {@link indexKey}. */
export class IndexRegistry {
  private readonly indexes = new Map<string, Shared>();

  /** The index for `key`, built by `create` and started when nobody holds one yet. */
  async acquire(key: string, create: () => Index, log: Logger): Promise<IndexLease> {
    let shared = this.indexes.get(key);
    if (!shared) {
      const index = create();
      const entry: Shared = { index, users: 0, started: index.source.start() };
      shared = entry;
      this.indexes.set(key, entry);
      entry.started.catch(() => {
        if (this.indexes.get(key) === entry) this.indexes.delete(key);
      });
    }
    shared.users++;
    const current = shared;
    try {
      await current.started;
    } catch (error) {
      current.users--;
      throw error;
    }
    let released = false;
    return {
      index: current.index,
      release: async () => {
        if (released) return;
        released = true;
        if (--current.users > 0) return;
        if (this.indexes.get(key) === current) this.indexes.delete(key);
        try {
          await current.index.source.stop();
        } catch (error) {
          log.warning(`stopping source: ${(error as Error).message}`);
        }
      },
    };
  }
}
