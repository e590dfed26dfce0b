/**
 * Sources feed a {@link ServiceStore}: the Kubernetes API (src/kube-source.ts) or a directory of
 * manifests (src/manifests.ts). One source per configuration (connection or directory, local
 * cluster id) is shared by every server block and kept across reloads: the new configuration's
 * startup acquires it before the old one's shutdown releases it, so a reload does not relist.
 */
import type { Logger } from '@foghorn/core';
import type { ResourceName, ServiceStore } from './store.js';
import { errorMessage } from '@foghorn/core';

/** A running source of objects. */
export interface Source {
  readonly store: ServiceStore;
  /** True once every watched resource delivered its first complete list. */
  readonly synced: boolean;
  /** Restarts per resource (watch errors, relists after 410, a failed directory watcher). */
  restarts(): Partial<Record<ResourceName, number>>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

interface Shared {
  source: Source;
  users: number;
  started: Promise<void>;
}

/** A source held by one configuration; release it in `onShutdown`. */
export interface Lease {
  readonly source: Source;
  release(): Promise<void>;
}

/** Process-wide: the sources in use, by configuration key, and restarts of sources since stopped. */
export class SourceRegistry {
  private readonly sources = new Map<string, Shared>();
  /** Restarts of stopped sources, so the restarts counter never goes down. */
  private readonly retired = new Map<string, number>();

  async acquire(key: string, create: () => Source, log: Logger): Promise<Lease> {
    let shared = this.sources.get(key);
    if (!shared) {
      const source = create();
      const entry: Shared = { source, users: 0, started: source.start() };
      shared = entry;
      this.sources.set(key, entry);
      entry.started.catch(() => {
        if (this.sources.get(key) === entry) this.sources.delete(key);
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
      source: current.source,
      release: async () => {
        if (released) return;
        released = true;
        if (--current.users > 0) return;
        if (this.sources.get(key) === current) this.sources.delete(key);
        for (const [resource, n] of Object.entries(current.source.restarts())) this.retired.set(resource, (this.retired.get(resource) ?? 0) + (n ?? 0));
        try {
          await current.source.stop();
        } catch (error) {
          log.warning(`stopping source: ${errorMessage(error)}`);
        }
      },
    };
  }

  /** Every running source. */
  active(): Source[] {
    return [...this.sources.values()].map((shared) => shared.source);
  }

  /** Restarts per resource, over running and stopped sources. */
  restarts(): Map<string, number> {
    const totals = new Map(this.retired);
    for (const source of this.active()) {
      for (const [resource, n] of Object.entries(source.restarts())) totals.set(resource, (totals.get(resource) ?? 0) + (n ?? 0));
    }
    return totals;
  }
}
