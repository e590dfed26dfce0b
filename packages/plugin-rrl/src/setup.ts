/**
 * Parsing `rrl` and wiring the handler, with coredns/rrl's syntax and error texts
 * (`plugins/rrl/setup.go` of github.com/coredns/rrl):
 *
 * ~~~ txt
 * rrl [ZONES...] {
 *     window SECONDS
 *     ipv4-prefix-length LENGTH
 *     ipv6-prefix-length LENGTH
 *     responses-per-second ALLOWANCE
 *     nodata-per-second ALLOWANCE
 *     nxdomains-per-second ALLOWANCE
 *     referrals-per-second ALLOWANCE
 *     errors-per-second ALLOWANCE
 *     slip-ratio N            (or BIND's `slip N`)
 *     requests-per-second ALLOWANCE
 *     max-table-size SIZE
 *     report-only             (or BIND's `log-only`)
 * }
 * ~~~
 */
import { errOnce, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { Rrl } from './handler.js';
import { createRrlMetrics } from './metrics.js';

/** The options of one `rrl` directive; rates are per second, 0 meaning "not limited". */
export interface RrlOptions {
  /** Zones whose queries are limited: the directive's, else the server block's. */
  readonly zones: readonly string[];
  /** `window`: how far into debt an account goes, in ms (default 15 s). */
  readonly windowMs: number;
  /** `ipv4-prefix-length`: bits of an IPv4 client address that make its account (1..32). */
  readonly ipv4PrefixLength: number;
  /** `ipv6-prefix-length`: bits of an IPv6 client address that make its account (1..128). */
  readonly ipv6PrefixLength: number;
  /** `responses-per-second`: positive replies (with answers) per name and type. */
  readonly responsesPerSecond: number;
  /** `nodata-per-second`: empty NOERROR replies per name; defaults to responses-per-second. */
  readonly nodataPerSecond: number;
  /** `nxdomains-per-second`: NXDOMAIN replies per zone; defaults to responses-per-second. */
  readonly nxdomainsPerSecond: number;
  /** `referrals-per-second`: referrals per delegation; defaults to responses-per-second. */
  readonly referralsPerSecond: number;
  /** `errors-per-second`: other error replies, all names together; defaults to responses-per-second. */
  readonly errorsPerSecond: number;
  /** `requests-per-second`: UDP queries per client prefix, whatever their reply (default 0). */
  readonly requestsPerSecond: number;
  /** `slip-ratio`: every Nth reply over the limit is sent truncated instead of dropped; 0: none (0..10). */
  readonly slipRatio: number;
  /** `max-table-size`: accounts kept at most (default 100,000); 0 keeps none and limits nothing. */
  readonly maxTableSize: number;
  /** `report-only`: count and log replies over the limit, but send them. */
  readonly reportOnly: boolean;
}

export const defaultWindowMs = 15_000;
export const defaultIpv4PrefixLength = 24;
export const defaultIpv6PrefixLength = 56;
export const defaultMaxTableSize = 100_000;
/** coredns/rrl's bound on `slip-ratio`, BIND's on `slip`. */
export const maxSlipRatio = 10;

/** Go's `strconv.ParseFloat` syntax for the decimal forms a Corefile holds (no `Inf`, `NaN` or hexadecimal). */
const floatSyntax = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `ARG invalid value. strconv.ParseFloat: parsing "ARG": invalid syntax`, as coredns/rrl words it. */
function parseFloatArg(c: Controller, text: string): number {
  if (!floatSyntax.test(text)) throw c.error(`${text} invalid value. strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
}

/** Go's `strconv.Atoi`, with coredns/rrl's `PREFIX invalid value. ` in front of its error. */
function atoiArg(c: Controller, text: string, prefix: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw c.error(`${prefix} invalid value. strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw c.error(`${prefix} invalid value. strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/** The single argument of the current property, or coredns's argument error. */
function oneArg(c: Controller): string {
  const args = c.remainingArgs();
  if (args.length !== 1) throw c.argError();
  return args[0]!;
}

/** coredns/rrl's `getIntervalArg`: a non-negative per-second allowance. */
function allowance(c: Controller): number {
  const text = oneArg(c);
  const rate = parseFloatArg(c, text);
  if (rate < 0) throw c.error(`${text} cannot be negative`);
  return rate;
}

/** A prefix length in 1..`max`. */
function prefixLength(c: Controller, max: number): number {
  const text = oneArg(c);
  const bits = atoiArg(c, text, text);
  if (bits <= 0 || bits > max) throw c.error(`${text} must be between 1 and ${max}`);
  return bits;
}

/**
 * Reads the block's `rrl` directive into options. Pure: the setup table test calls it directly.
 * Throws a Corefile error positioned at the offending token.
 */
export function parseRrl(c: Controller): RrlOptions {
  c.next();
  // As CoreDNS's OriginsFromArgsOrServerBlock: a zone argument that does not parse is skipped.
  const zones = zonesFromArgs(c, c.remainingArgs(), { ignoreInvalid: true });
  let windowMs = defaultWindowMs;
  let ipv4PrefixLength = defaultIpv4PrefixLength;
  let ipv6PrefixLength = defaultIpv6PrefixLength;
  let responsesPerSecond = 0;
  let nodataPerSecond: number | undefined;
  let nxdomainsPerSecond: number | undefined;
  let referralsPerSecond: number | undefined;
  let errorsPerSecond: number | undefined;
  let requestsPerSecond = 0;
  let slipRatio = 0;
  let maxTableSize = defaultMaxTableSize;
  let reportOnly = false;
  while (c.nextBlock()) {
    const property = c.val();
    switch (property) {
      case 'window': {
        const text = oneArg(c);
        const seconds = parseFloatArg(c, text);
        if (seconds <= 0) throw c.error('window must be greater than zero');
        windowMs = seconds * 1000;
        break;
      }
      case 'ipv4-prefix-length':
        ipv4PrefixLength = prefixLength(c, 32);
        break;
      case 'ipv6-prefix-length':
        ipv6PrefixLength = prefixLength(c, 128);
        break;
      case 'responses-per-second':
        responsesPerSecond = allowance(c);
        break;
      case 'nodata-per-second':
        nodataPerSecond = allowance(c);
        break;
      case 'nxdomains-per-second':
        nxdomainsPerSecond = allowance(c);
        break;
      case 'referrals-per-second':
        referralsPerSecond = allowance(c);
        break;
      case 'errors-per-second':
        errorsPerSecond = allowance(c);
        break;
      case 'requests-per-second':
        requestsPerSecond = allowance(c);
        break;
      case 'slip':
      case 'slip-ratio': {
        const text = oneArg(c);
        const ratio = atoiArg(c, text, `${property} '${text}'`);
        if (ratio < 0 || ratio > maxSlipRatio) throw c.error(`${property} '${text}' must be between 0 and ${maxSlipRatio}`);
        slipRatio = ratio;
        break;
      }
      case 'max-table-size': {
        const text = oneArg(c);
        const size = atoiArg(c, text, text);
        if (size < 0) throw c.error(`${text} cannot be negative`);
        maxTableSize = size;
        break;
      }
      case 'log-only':
      case 'report-only':
        if (c.remainingArgs().length > 0) throw c.argError();
        reportOnly = true;
        break;
      default:
        throw c.error(`unknown property '${property}'`);
    }
  }
  if (c.next()) throw errOnce(c);
  return {
    zones,
    windowMs,
    ipv4PrefixLength,
    ipv6PrefixLength,
    responsesPerSecond,
    // Unset category rates follow responses-per-second, as in coredns/rrl.
    nodataPerSecond: nodataPerSecond ?? responsesPerSecond,
    nxdomainsPerSecond: nxdomainsPerSecond ?? responsesPerSecond,
    referralsPerSecond: referralsPerSecond ?? responsesPerSecond,
    errorsPerSecond: errorsPerSecond ?? responsesPerSecond,
    requestsPerSecond,
    slipRatio,
    maxTableSize,
    reportOnly,
  };
}

/** Parses the directive and adds the handler, which allocates its table when the chain is built. */
export function setup(c: Controller): void {
  const options = parseRrl(c);
  const metrics = createRrlMetrics(c.registry);
  const log = c.log;
  c.addHandler((next) => new Rrl(options, metrics, log, next));
}
