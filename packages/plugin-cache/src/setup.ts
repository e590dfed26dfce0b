/**
 * Parsing `cache` (CoreDNS's plugin/cache) and wiring the handler.
 *
 * ~~~ txt
 * cache [TTL] [ZONES...] {
 *     success CAPACITY [TTL [MINTTL]]
 *     denial  CAPACITY [TTL [MINTTL]]
 *     prefetch AMOUNT [DURATION [PERCENTAGE%]]
 *     serve_stale [DURATION [immediate [RESPONSE_TTL [FAILURE_RECHECK]] | verify [VERIFY_TIMEOUT [RESPONSE_TTL [FAILURE_RECHECK]]]]]
 *     serve_stale_policy prefer_positive
 *     servfail DURATION
 *     disable success|denial [ZONES...]
 *     keepttl
 * }
 * ~~~
 */
import { atoi, durationArg, errOnce, normalizeZone, Views, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { Cache } from './handler.js';
import { createCacheMetrics } from './metrics.js';

/** Capacity and TTL bounds of one of the two caches. */
export interface CacheTier {
  /** Entries as written (`success 10000`); the cache holds `effectiveCapacity` of them (store.ts). */
  readonly capacity: number;
  /** Upper bound of an entry's TTL, in seconds. */
  readonly maxTtlSeconds: number;
  /** Lower bound of an entry's TTL, in seconds; 0 lets TTL-0 replies go uncached. */
  readonly minTtlSeconds: number;
}

/** How a stale entry is refreshed. */
export type StaleMode = 'immediate' | 'verify';

/** What a `cache` block configures. */
export interface CacheOptions {
  /** Zones the cache answers for, lower-case and fully qualified. */
  readonly zones: readonly string[];
  readonly success: CacheTier;
  readonly denial: CacheTier;
  /** `prefetch AMOUNT`: hits needed within {@link prefetchDurationMs}; 0 turns prefetch off. */
  readonly prefetchAmount: number;
  /** Window in which hits count towards {@link prefetchAmount}, in milliseconds. */
  readonly prefetchDurationMs: number;
  /** Prefetch when the remaining TTL is at most this share of the stored TTL, 10 to 90. */
  readonly prefetchPercentage: number;
  /** How long after expiry an entry may still be served, in milliseconds; 0 = serve_stale off. */
  readonly staleUpToMs: number;
  readonly staleMode: StaleMode;
  /** verify mode: how long to wait for the chain before serving stale; 0 waits for the chain. */
  readonly verifyTimeoutMs: number;
  /** TTL of records in a stale answer, in seconds. */
  readonly staleResponseTtlSeconds: number;
  /** After a failed refresh, no new refresh for this long, in milliseconds; 0 = always retry. */
  readonly failureRecheckMs: number;
  /** `serve_stale_policy prefer_positive`: look in the success cache first. */
  readonly preferPositive: boolean;
  /** How long SERVFAIL/NOTIMP replies are cached, in milliseconds; 0 disables it. */
  readonly servfailMs: number;
  /** `disable success ZONES...`: names under these are never stored in the success cache. */
  readonly disableSuccess: readonly string[];
  /** `disable denial ZONES...` */
  readonly disableDenial: readonly string[];
  /** `keepttl`: answer with the stored TTL instead of counting down. */
  readonly keepTtl: boolean;
}

/** CoreDNS's `defaultCap`. */
export const defaultCapacity = 10_000;
/** `maxTTL`: the success maximum, one hour (dnsutil.MaximumDefaulTTL). */
export const defaultSuccessMaxTtlSeconds = 3600;
/** `maxNTTL`: the denial maximum, half an hour. */
export const defaultDenialMaxTtlSeconds = 1800;
/** `minTTL`/`minNTTL` (dnsutil.MinimalDefaultTTL). */
export const defaultMinTtlSeconds = 5;
/** `failttl`: SERVFAIL replies are cached for 5 s. */
export const defaultServfailMs = 5_000;
/** RFC 2308 §7.1: a SERVFAIL must not be cached for more than five minutes. */
export const maxServfailMs = 300_000;
/** Prefetch window and threshold when `prefetch AMOUNT` names none. */
export const defaultPrefetchDurationMs = 60_000;
export const defaultPrefetchPercentage = 10;
/** `serve_stale` with no duration serves for an hour after expiry. */
export const defaultStaleUpToMs = 3_600_000;
/** FAILURE_RECHECK is capped like SERVFAIL caching. */
export const maxFailureRecheckMs = 300_000;
function parseTier(c: Controller, tier: CacheTier): CacheTier {
  const args = c.remainingArgs();
  if (args.length === 0) throw c.argError();
  const capacity = atoi(c, args[0]!);
  let { maxTtlSeconds, minTtlSeconds } = tier;
  if (args.length > 1) {
    maxTtlSeconds = atoi(c, args[1]!);
    if (maxTtlSeconds <= 0) throw c.error(`cache TTL can not be zero or negative: ${maxTtlSeconds}`);
    if (args.length > 2) {
      minTtlSeconds = atoi(c, args[2]!);
      if (minTtlSeconds < 0) throw c.error(`cache min TTL can not be negative: ${minTtlSeconds}`);
    }
  }
  return { capacity, maxTtlSeconds, minTtlSeconds };
}

/**
 * Reads the block's `cache` line and block into options. Pure: the setup table test calls it
 * directly. Throws a positioned Corefile error for bad input.
 */
export function parseCache(c: Controller): CacheOptions {
  let seen = false;
  let zones: readonly string[] = c.zones;
  let success: CacheTier = { capacity: defaultCapacity, maxTtlSeconds: defaultSuccessMaxTtlSeconds, minTtlSeconds: defaultMinTtlSeconds };
  let denial: CacheTier = { capacity: defaultCapacity, maxTtlSeconds: defaultDenialMaxTtlSeconds, minTtlSeconds: defaultMinTtlSeconds };
  let prefetchAmount = 0;
  let prefetchDurationMs = defaultPrefetchDurationMs;
  let prefetchPercentage = defaultPrefetchPercentage;
  let staleUpToMs = 0;
  let staleMode: StaleMode = 'immediate';
  let verifyTimeoutMs = 0;
  let staleResponseTtlSeconds = 0;
  let failureRecheckMs = 0;
  let preferPositive = false;
  let servfailMs = defaultServfailMs;
  let disableSuccess: readonly string[] = [];
  let disableDenial: readonly string[] = [];
  let keepTtl = false;
  while (c.next()) {
    if (seen) throw errOnce(c);
    seen = true;
    const args = c.remainingArgs();
    if (args.length > 0 && /^[+-]?\d+$/.test(args[0]!)) {
      // The first argument is the TTL when it is a number, else it is a zone.
      const ttl = atoi(c, args[0]!);
      if (ttl <= 0) throw c.error(`cache TTL can not be zero or negative: ${ttl}`);
      success = { ...success, maxTtlSeconds: ttl };
      denial = { ...denial, maxTtlSeconds: ttl };
      args.shift();
    }
    zones = zonesFromArgs(c, args);
    let sawPolicy = false;
    let sawStale = false;
    while (c.nextBlock()) {
      switch (c.val()) {
        case 'success':
          success = parseTier(c, success);
          break;
        case 'denial':
          denial = parseTier(c, denial);
          break;
        case 'prefetch': {
          const a = c.remainingArgs();
          if (a.length === 0 || a.length > 3) throw c.argError();
          prefetchAmount = atoi(c, a[0]!);
          if (prefetchAmount < 0) throw c.error(`prefetch amount should be positive: ${prefetchAmount}`);
          if (a.length > 1) prefetchDurationMs = durationArg(c, a[1]!);
          if (a.length > 2) {
            const pct = a[2]!;
            const last = pct[pct.length - 1]!;
            if (last !== '%') throw c.error(`last character of percentage should be \`%\`, but is: '${last}'`);
            const num = atoi(c, pct.slice(0, -1));
            if (num < 10 || num > 90) throw c.error(`percentage should fall in range [10, 90]: ${num}`);
            prefetchPercentage = num;
          }
          break;
        }
        case 'serve_stale': {
          const a = c.remainingArgs();
          if (a.length > 5) throw c.argError();
          sawStale = true;
          staleUpToMs = defaultStaleUpToMs;
          staleMode = 'immediate';
          verifyTimeoutMs = 0;
          staleResponseTtlSeconds = 0;
          failureRecheckMs = 0;
          if (a.length > 0) {
            staleUpToMs = durationArg(c, a[0]!);
            if (staleUpToMs < 0) throw c.error('invalid negative duration for serve_stale');
          }
          if (a.length > 1) {
            const mode = a[1]!.toLowerCase();
            if (mode !== 'immediate' && mode !== 'verify') throw c.error(`invalid value for serve_stale refresh mode: ${mode}`);
            staleMode = mode;
          }
          let rest = a.slice(2);
          if (staleMode === 'immediate' && rest.length > 2) throw c.argError();
          if (staleMode === 'verify' && rest.length > 0) {
            verifyTimeoutMs = durationArg(c, rest[0]!);
            if (verifyTimeoutMs < 0) throw c.error(`invalid negative verify timeout for serve_stale: ${rest[0]!}`);
            rest = rest.slice(1);
          }
          if (rest.length > 0) {
            const ms = durationArg(c, rest[0]!);
            if (ms < 0 || ms % 1000 !== 0) throw c.error(`serve_stale response TTL must be a whole number of seconds, not negative: ${rest[0]!}`);
            staleResponseTtlSeconds = ms / 1000;
          }
          if (rest.length > 1) {
            failureRecheckMs = durationArg(c, rest[1]!);
            if (failureRecheckMs < 0) throw c.error(`invalid negative failure recheck for serve_stale: ${rest[1]!}`);
            if (failureRecheckMs > maxFailureRecheckMs) throw c.error(`serve_stale failure recheck over 5 minutes is not permitted: ${rest[1]!}`);
          }
          break;
        }
        case 'serve_stale_policy': {
          const a = c.remainingArgs();
          if (a.length !== 1) throw c.argError();
          if (sawPolicy) throw c.error('serve_stale_policy can only be specified once');
          if (a[0]!.toLowerCase() !== 'prefer_positive') throw c.error(`invalid value for serve_stale_policy: ${a[0]!}`);
          sawPolicy = true;
          preferPositive = true;
          break;
        }
        case 'servfail': {
          const a = c.remainingArgs();
          if (a.length !== 1) throw c.argError();
          const ms = durationArg(c, a[0]!);
          if (ms < 0) throw c.error('invalid negative ttl for servfail');
          if (ms > maxServfailMs) throw c.error('caching SERVFAIL responses over 5 minutes is not permitted');
          servfailMs = ms;
          break;
        }
        case 'disable': {
          const a = c.remainingArgs();
          if (a.length < 1) throw c.argError();
          const list = a.length > 1 ? a.slice(1).map((z) => normalizeZone(z)) : ['.'];
          if (a[0] === 'success') disableSuccess = list;
          else if (a[0] === 'denial') disableDenial = list;
          else throw c.error('cache type for disable must be "success" or "denial"');
          break;
        }
        case 'keepttl':
          if (c.nextArg()) throw c.argError();
          keepTtl = true;
          break;
        default:
          throw c.argError();
      }
    }
    // Checked after the block, as CoreDNS does: the options may come in any order.
    if (sawPolicy && !sawStale) throw c.error('serve_stale_policy requires serve_stale');
  }
  return {
    zones,
    success,
    denial,
    prefetchAmount,
    prefetchDurationMs,
    prefetchPercentage,
    staleUpToMs,
    staleMode,
    verifyTimeoutMs,
    staleResponseTtlSeconds,
    failureRecheckMs,
    preferPositive,
    servfailMs,
    disableSuccess,
    disableDenial,
    keepTtl,
  };
}

/** What a test (or an embedder) may inject into the plugin. */
export interface CacheHooks {
  /** The clock, in milliseconds since the epoch; `Date.now` by default. */
  readonly now?: () => number;
  /** Picks the entry a full shard evicts, a number in [0, 1); `Math.random` by default. */
  readonly random?: () => number;
  /** Called with every cache the plugin creates, so a test can wait for background refreshes. */
  readonly onCreate?: (cache: Cache) => void;
}

/** The setup of a cache with `hooks`: parses the block and adds the handler. */
export function setupWith(hooks: CacheHooks = {}): (c: Controller) => void {
  return (c) => setupBlock(c, hooks);
}

/** `cache` with the real clock. */
export const setup: (c: Controller) => void = setupWith();

function setupBlock(c: Controller, hooks: CacheHooks): void {
  const options = parseCache(c);
  const cache = new Cache(options, createCacheMetrics(c.registry), hooks.now ?? Date.now, hooks.random ?? Math.random);
  hooks.onCreate?.(cache);
  c.onShutdown(() => cache.close());
  c.addHandler((next) => {
    cache.view = c.use(Views)[0]?.name ?? '';
    return cache.link(next);
  });
}
