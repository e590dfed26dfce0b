/**
 * `secondary [ZONES...] { transfer from ADDRESS...; fallthrough [ZONES...]; max_records COUNT }`,
 * after CoreDNS's `plugin/secondary/setup.go` and `plugin/pkg/parse.TransferIn`. Setup only
 * parses; the transfers start with the server.
 */
import { atoi, errorAt, errorMessage, fallthroughZones, Transferers, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { hostPort } from '@foghorn/core/wire';
import type { TransferLimits } from './axfr.js';
import { Secondary } from './handler.js';
import { CarriedZones, SecondaryZones } from './zones.js';
import type { SecondaryConfig } from './zones.js';

/**
 * Records a transferred zone may have unless `max_records` says otherwise. A record held costs
 * about 240 bytes of heap, so the default bounds a transfer near 60 MB: a primary that sends
 * without end cannot take a 170 MiB pod down (CoreDNS has no limit).
 */
export const defaultMaxRecords = 250_000;
/**
 * Bytes of messages a transfer may read per record allowed: a zone averages 30 to 60 bytes a
 * record on the wire, signed ones more; 128 leaves room and bounds a stream of huge records
 * as well (32 MB at the default; PowerDNS's own cap is 100 MB).
 */
const BYTES_PER_RECORD = 128;
/** miekg/dns's dial and read timeout, which CoreDNS's transfers use. */
export const transferTimeoutMs = 2_000;
/** The longest a transfer may run however steadily it progresses (BIND: 120 min; CoreDNS: none). */
export const transferDeadlineMs = 10 * 60_000;

export interface SecondaryOptions {
  readonly zones: readonly SecondaryConfig[];
  /** `fallthrough [ZONES...]`: null when off, `['.']` for every name. */
  readonly fallthrough: readonly string[] | null;
  readonly limits: TransferLimits;
}

/** Parses every `secondary` directive of the block. */
export function parseSecondary(c: Controller): SecondaryOptions {
  const zones = new Map<string, SecondaryConfig>();
  let fallthrough: string[] | null = null;
  let maxRecords = defaultMaxRecords;
  while (c.next()) {
    const origins = zonesFromArgs(c, c.remainingArgs());
    const primaries: string[] = [];
    let hasTransfer = false;
    while (c.nextBlock()) {
      const property = c.val();
      switch (property) {
        case 'transfer':
          primaries.push(...transferFrom(c));
          hasTransfer = true;
          break;
        case 'fallthrough':
          fallthrough = fallthroughZones(c, c.remainingArgs());
          break;
        case 'max_records': {
          const args = c.remainingArgs();
          if (args.length !== 1) throw c.argError();
          maxRecords = atoi(c, args[0]!);
          if (maxRecords < 1) throw c.error(`max_records must be at least 1, got '${args[0]}'`);
          break;
        }
        default:
          throw c.error(`unknown property '${property}'`);
      }
    }
    if (!hasTransfer) throw c.error('secondary zones require a transfer from property');
    for (const origin of origins) zones.set(origin, { origin, primaries });
  }
  const limits: TransferLimits = { maxRecords, maxBytes: maxRecords * BYTES_PER_RECORD, timeoutMs: transferTimeoutMs, deadlineMs: transferDeadlineMs };
  return { zones: [...zones.values()], fallthrough, limits };
}

/** `transfer from ADDRESS...` (CoreDNS's `parse.TransferIn`): each address as `host:port`. */
function transferFrom(c: Controller): string[] {
  if (!c.nextArg()) throw c.argError();
  const value = c.val();
  if (value !== 'from') throw c.error(`unknown property ${value}`);
  const tokens = c.remainingArgTokens();
  if (tokens.length === 0) throw c.argError();
  return tokens.map((token) => {
    if (token.text === '*') throw errorAt(token, "can't use '*' in transfer from");
    try {
      return hostPort(token.text);
    } catch (error) {
      throw errorAt(token, errorMessage(error));
    }
  });
}

/** Parses the directive; starts the transfers with the server, offers the zones to *transfer*. */
export function setup(c: Controller): void {
  const options = parseSecondary(c);
  // CoreDNS logs transfers and NOTIFY from its file package: `plugin/file:` lines.
  const fileLog = c.log.forPlugin('file');
  const zones = new SecondaryZones(options.zones, options.limits, c.log, fileLog);
  c.provide(Transferers, zones);
  const carried = c.shared(CarriedZones, () => new Map());
  c.onStartup(() => zones.start(carried));
  c.onShutdown(() => zones.stop());
  c.addHandler((next) => new Secondary(zones, options.fallthrough ?? [], next, fileLog));
}
