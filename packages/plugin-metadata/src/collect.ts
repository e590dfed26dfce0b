/**
 * The metadata of one query: CoreDNS's `metadata` package, lazily. CoreDNS calls every provider
 * for every query, and each provider stores a closure per label in the query's context; here a
 * query's metadata is one small object, and a provider is asked for a label only when a plugin
 * reads it. What is read is kept for the rest of the query, so a label costs its provider once.
 *
 *   collect(req) ─► QueryMetadata { entries: [] } ─────────────── one allocation per query
 *   get(label)   ─► entries ─► found: the value (a function set is run once, then replaced)
 *                          └─► not found: providers, last first ─► remembered, even undefined
 *   set(label)   ─► entries: replaced or appended
 */
import { matchZone } from '@foghorn/core';
import type { MetadataCollector, MetadataProvider, QueryMetadata, Request } from '@foghorn/core';

type Value = string | (() => string) | undefined;

/** No provider: queries outside the plugin's zones, whose metadata only plugins of the chain set. */
const noProviders: readonly MetadataProvider[] = [];

/**
 * One query's labels and values. A query reads or sets a handful of labels: a flat array,
 * searched from the end, costs less than a Map's hashing and its table.
 */
class Metadata implements QueryMetadata {
  /** Label, value, label, value, ... in the order they were first read or set. */
  private entries: Value[] | null = null;

  constructor(
    private readonly req: Request,
    private readonly providers: readonly MetadataProvider[],
  ) {}

  get(label: string): string | undefined {
    const entries = this.entries;
    if (entries !== null) {
      for (let i = entries.length - 2; i >= 0; i -= 2) {
        if (entries[i] !== label) continue;
        const value = entries[i + 1];
        if (typeof value !== 'function') return value;
        const computed = value();
        entries[i + 1] = computed;
        return computed;
      }
    }
    let value: string | undefined;
    const providers = this.providers;
    // CoreDNS calls providers in directive order, each SetValueFunc replacing the one before: the last one wins.
    for (let i = providers.length - 1; i >= 0 && value === undefined; i--) value = providers[i]!.metadata(this.req, label);
    this.remember(label, value);
    return value;
  }

  set(label: string, value: string | (() => string)): void {
    const entries = this.entries;
    if (entries !== null) {
      for (let i = entries.length - 2; i >= 0; i -= 2) {
        if (entries[i] === label) {
          entries[i + 1] = value;
          return;
        }
      }
    }
    this.remember(label, value);
  }

  private remember(label: string, value: Value): void {
    if (this.entries === null) this.entries = [label, value];
    else this.entries.push(label, value);
  }
}

/**
 * The block's collector (CoreDNS's `Metadata.Collect`): every query routed to the block gets
 * metadata that plugins can set; the providers are asked only for queries in `zones`.
 */
export class Collector implements MetadataCollector {
  /**
   * @param zones the plugin's zones, or null when they are the block's: every query routed to
   *   the block is in one of them, so no name is compared per query
   * @param providers the block's providers, a list that is complete once the server starts
   */
  constructor(
    private readonly zones: readonly string[] | null,
    private readonly providers: readonly MetadataProvider[],
  ) {}

  collect(req: Request): QueryMetadata {
    const zones = this.zones;
    const inZones = zones === null || matchZone(zones, req.qname) !== undefined;
    return new Metadata(req, inZones ? this.providers : noProviders);
  }
}
