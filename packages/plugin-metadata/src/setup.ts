/** Setup of *metadata* (CoreDNS's `plugin/metadata/setup.go`). */
import { MetadataCollectors, MetadataProviders, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { Collector } from './collect.js';
import { MetadataHandler } from './handler.js';

/**
 * Parses `metadata [ZONES...]` as CoreDNS's `metadataParse`: the zones default to the server
 * block's, an invalid zone is skipped (`OriginsFromArgsOrServerBlock`), and a block or a second
 * `metadata` is an argument error. Returns the zones.
 */
export function parseMetadata(c: Controller): string[] {
  c.next();
  const zones = zonesFromArgs(c, c.remainingArgs(), { ignoreInvalid: true });
  if (c.nextBlock() || c.next()) throw c.argError();
  return zones;
}

/** Parses the directive, offers the block's collector to core, and adds the pass-through handler. */
export function setup(c: Controller): void {
  const zones = parseMetadata(c);
  const ownZones = zones.length === c.zones.length && zones.every((zone) => c.zones.includes(zone));
  // The providers' list is live: kubernetes and view, later in the directive list, join it in their setups.
  c.provide(MetadataCollectors, new Collector(ownZones ? null : zones, c.use(MetadataProviders)));
  c.addHandler((next) => new MetadataHandler(next));
}
