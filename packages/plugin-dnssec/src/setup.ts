/**
 * `dnssec [ZONES...] { key file KEY...; cache_capacity CAPACITY }`, after CoreDNS's
 * `plugin/dnssec/setup.go`: the key files are read here, so a missing or broken key refuses the
 * Corefile with its position; the cache's cleaning timer starts with the server.
 */
import { atoi, errorAt, errorMessage, errOnce, isSubdomain, zonesFromArgs } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { SignatureCache } from './cache.js';
import { Dnssec } from './handler.js';
import { readKeyFiles } from './key.js';
import type { SigningKey } from './key.js';
import { createDnssecMetrics } from './metrics.js';
import { Signer } from './signer.js';

/** CoreDNS's default capacity of the signature cache (`defaultCap`). */
export const DEFAULT_CAPACITY = 10_000;
/** How often stale signatures are dropped from the cache (CoreDNS's `periodicClean`: 8 hours). */
export const CLEAN_INTERVAL_MS = 8 * 3600 * 1000;

export interface DnssecOptions {
  /** The zones signed: lower-case, fully qualified. */
  readonly zones: readonly string[];
  readonly keys: readonly SigningKey[];
  /** Most RRsets whose signatures the cache keeps; 0 keeps none. */
  readonly capacity: number;
  /** KSKs and ZSKs both present: KSKs sign the DNSKEY RRset only (RFC 6781 §3.1). */
  readonly splitKeys: boolean;
}

/** Parses the directive; throws a positioned error on bad input or an unreadable key. */
export function parseDnssec(c: Controller): DnssecOptions {
  let zones: string[] = [];
  const keys: { key: SigningKey; token: Token }[] = [];
  let capacity = DEFAULT_CAPACITY;
  let seen = false;
  while (c.next()) {
    if (seen) throw errOnce(c);
    seen = true;
    // CoreDNS's OriginsFromArgsOrServerBlock skips what is not a zone.
    zones = zonesFromArgs(c, c.remainingArgs(), { ignoreInvalid: true });
    while (c.nextBlock()) {
      const property = c.val();
      switch (property) {
        case 'key':
          keys.push(...parseKeys(c));
          break;
        case 'cache_capacity': {
          if (!c.nextArg()) throw c.argError();
          capacity = atoi(c, c.val());
          if (capacity < 0) throw c.error(`cache_capacity must not be negative, got '${c.val()}'`);
          break;
        }
        default:
          throw c.error(`unknown property '${property}'`);
      }
    }
  }
  // Each key's owner must be one of the zones or above them (CoreDNS: `kname.Matches`).
  for (const { key, token } of keys) {
    if (!zones.some((zone) => isSubdomain(zone, key.owner))) {
      throw errorAt(token, `key ${key.owner} (keyid: ${key.tag}) can not sign any of the zones`);
    }
  }
  const signing = keys.map(({ key }) => key);
  const splitKeys = signing.some((key) => key.isKsk) && signing.some((key) => key.isZsk);
  return { zones, keys: signing, capacity, splitKeys };
}

/** `key file KEY...`: each KEY is a base name, or the `.key` or `.private` file of one. */
function parseKeys(c: Controller): { key: SigningKey; token: Token }[] {
  if (!c.nextArg()) throw c.argError();
  const source = c.val();
  if (source === 'aws_secretsmanager') {
    throw c.error("key aws_secretsmanager is not supported: store the key pair in files and use 'key file'");
  }
  if (source !== 'file') throw c.error(`unknown key source '${source}', expected 'file'`);
  const tokens = c.remainingArgTokens();
  if (tokens.length === 0) throw c.argError();
  return tokens.map((token) => {
    const base = token.text.replace(/\.(key|private)$/, '');
    try {
      // A relative name is read from the working directory, as CoreDNS does without *root*.
      return { key: readKeyFiles(base), token };
    } catch (error) {
      throw errorAt(token, errorMessage(error), { cause: error });
    }
  });
}

/** Parses the directive, builds the signer and its cache, adds the handler. */
export function setup(c: Controller): void {
  const options = parseDnssec(c);
  const cache = new SignatureCache(options.capacity);
  const signer = new Signer(options.zones, { keys: options.keys, split: options.splitKeys }, cache);
  const metrics = createDnssecMetrics(c.registry);
  let timer: NodeJS.Timeout | undefined;
  c.onStartup(() => {
    timer = setInterval(() => cache.clean(Math.floor(Date.now() / 1000)), CLEAN_INTERVAL_MS);
    timer.unref();
  });
  c.onShutdown(() => clearInterval(timer));
  c.addHandler((next) => new Dnssec(signer, metrics, next));
}
