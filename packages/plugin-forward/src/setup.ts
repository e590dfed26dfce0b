/**
 * Parsing `forward` (CoreDNS's plugin/forward) and wiring its handlers. Several `forward` lines in one block are
 * allowed; they are chained in file order and the last one's next is the block's next plugin.
 *
 * ~~~ txt
 * forward FROM TO... {
 *     except IGNORED_NAMES...
 *     force_tcp
 *     prefer_udp
 *     expire DURATION
 *     max_age DURATION
 *     max_idle_conns INTEGER
 *     read_timeout DURATION
 *     max_fails INTEGER
 *     max_connect_attempts INTEGER
 *     health_check DURATION [no_rec] [domain FQDN]
 *     tls [CERT KEY] [CA]
 *     tls_servername NAME
 *     policy random|round_robin|sequential
 *     max_concurrent INTEGER
 *     next RCODE...
 *     next_on_nodata
 *     failover RCODE...
 *     failfast_all_unhealthy_upstreams
 *     doh_method GET|POST
 *     source_address IP
 * }
 * ~~~
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { atoi, defineShared, DnstapSinks, durationArg, errorAt, errorMessage, normalizeZone, Rcode, rootedPath, zonesFromArgs } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { Forward, resolveRuntime } from './handler.js';
import type { ForwardRuntime } from './handler.js';
import { createForwardMetrics } from './metrics.js';
import type { ForwardMetrics } from './metrics.js';
import { Proxy } from './proxy.js';
import { parseUpstream, UpstreamError } from './upstream.js';
import type { Upstream } from './upstream.js';

/** How the upstreams are ordered for each query. */
export type Policy = 'random' | 'round_robin' | 'sequential';

/** Client certificate and CA for DNS over TLS, as read from the files `tls` names. */
export interface TlsFiles {
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly ca?: Buffer;
}

/** What one `forward` line configures. */
export interface ForwardOptions {
  /** FROM, normalised: lower-case, fully qualified. */
  readonly from: string;
  /** Upstreams in configuration order, duplicates removed. */
  readonly upstreams: readonly Upstream[];
  /** `except`: names under these are not forwarded (FROM itself always is). */
  readonly except: readonly string[];
  readonly forceTcp: boolean;
  readonly preferUdp: boolean;
  /** Idle lifetime of a pooled connection in ms. */
  readonly expireMs: number;
  /** Absolute lifetime of a pooled connection in ms; 0 = unlimited. */
  readonly maxAgeMs: number;
  /** Idle connections kept per upstream and transport; 0 = unlimited. */
  readonly maxIdleConns: number;
  /** Read timeout of one attempt in ms. */
  readonly readTimeoutMs: number;
  /** Failed health checks before an upstream counts as down; 0 = never, and no health checks. */
  readonly maxFails: number;
  /** Attempts per query; 0 = only the 5 s budget limits them. */
  readonly maxConnectAttempts: number;
  /** Pause between two failed health probes in ms. */
  readonly healthCheckIntervalMs: number;
  /** RD bit of the health probe (`no_rec` clears it). */
  readonly healthCheckRecursionDesired: boolean;
  /** Name the health probe asks NS for. */
  readonly healthCheckDomain: string;
  /** `tls`: files for TLS upstreams; undefined = system CAs, no client certificate. */
  readonly tls: TlsFiles | undefined;
  /** `tls_servername`: SNI and the name the certificate must carry. */
  readonly tlsServerName: string | undefined;
  readonly policy: Policy;
  /** Queries in flight beyond which new ones are REFUSED; 0 = unlimited. */
  readonly maxConcurrent: number;
  /** `next`: rcodes that hand the query to the next forward. */
  readonly next: readonly number[];
  readonly nextOnNodata: boolean;
  /** `failover`: rcodes that make the query try the next upstream. */
  readonly failover: readonly number[];
  readonly failfastAllUnhealthyUpstreams: boolean;
  readonly dohMethod: 'GET' | 'POST';
  /** Local address for upstream sockets; undefined = the system's choice. */
  readonly sourceAddress: string | undefined;
}

/** At most this many upstreams per `forward` (CoreDNS's `max`). */
export const MAX_UPSTREAMS = 15;
/** CoreDNS's `defaultExpire`. */
export const defaultExpireMs = 10_000;
/** CoreDNS's default `max_fails`. */
export const defaultMaxFails = 2;
/** CoreDNS's `hcInterval`. */
export const defaultHealthCheckIntervalMs = 500;
/** CoreDNS's default read timeout per attempt. */
export const defaultReadTimeoutMs = 2_000;

const rcodeNames: ReadonlyMap<string, number> = new Map([
  ...Object.entries(Rcode),
  // miekg/dns's StringToRcode also knows these spellings.
  ['NOTAUTH', Rcode.NOTAUTH],
  ['BADSIG', 16],
  ['BADKEY', 17],
  ['BADTIME', 18],
  ['BADMODE', 19],
  ['BADNAME', 20],
  ['BADALG', 21],
  ['BADTRUNC', 22],
  ['BADCOOKIE', 23],
]);

/** The next argument on the line; none is an argument-count error. */
function arg(c: Controller): string {
  if (!c.nextArg()) throw c.argError();
  return c.val();
}

function duration(c: Controller, name: string): number {
  const text = arg(c);
  const ms = durationArg(c, text);
  if (ms < 0) throw c.error(`${name} can't be negative: ${text}`);
  return ms;
}

function integer(c: Controller, name: string): number {
  const n = atoi(c, arg(c));
  if (n < 0) throw c.error(`${name} can't be negative: ${n}`);
  return n;
}

function noArgs(c: Controller): true {
  if (c.nextArg()) throw c.argError();
  return true;
}

function rcodes(c: Controller, option: 'next' | 'failover'): number[] {
  const tokens = c.remainingArgTokens();
  if (tokens.length === 0) throw c.argError();
  return tokens.map((token) => {
    const rcode = rcodeNames.get(token.text.toUpperCase());
    if (rcode === undefined) throw errorAt(token, `${token.text} is not a valid rcode`);
    if (option === 'failover' && rcode === Rcode.NOERROR) throw errorAt(token, 'NoError cannot be used in failover');
    return rcode;
  });
}

function readTlsFile(c: Controller, path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw c.error(`could not load TLS ${what}: ${errorMessage(error)}`);
  }
}

/** `tls [CERT KEY] [CA]`: 0 args, CA; CERT KEY; or CERT KEY CA. */
function parseTls(c: Controller): TlsFiles {
  // Relative paths are under the block's *root*, as CoreDNS joins them.
  const args = c.remainingArgs().map((path) => rootedPath(c, path));
  if (args.length > 3) throw c.argError();
  if (args.length === 0) return {};
  if (args.length === 1) return { ca: readTlsFile(c, args[0] ?? '', 'CA') };
  const cert = readTlsFile(c, args[0] ?? '', 'cert');
  const key = readTlsFile(c, args[1] ?? '', 'key');
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw c.error(`could not load TLS cert: ${errorMessage(error)}`);
  }
  return args.length === 3 ? { cert, key, ca: readTlsFile(c, args[2] ?? '', 'CA') } : { cert, key };
}

function parseHealthCheck(c: Controller): { intervalMs: number; recursionDesired: boolean; domain: string } {
  const intervalMs = duration(c, 'health_check');
  let recursionDesired = true;
  let domain = '.';
  while (c.nextArg()) {
    switch (c.val()) {
      case 'no_rec':
        recursionDesired = false;
        break;
      case 'domain': {
        const name = arg(c);
        if (name.length > 255 || name.includes('..') || /\s/.test(name)) throw c.error(`health_check: invalid domain name ${name}`);
        domain = normalizeZone(name);
        break;
      }
      default:
        throw c.error(`health_check: unknown option ${c.val()}`);
    }
  }
  return { intervalMs, recursionDesired, domain };
}

function parseFrom(c: Controller): string {
  const text = c.val();
  const zones = zonesFromArgs(c, [text]);
  // CoreDNS uses only the first reverse zone of a CIDR that expands to several.
  if (zones.length > 1) c.log.warning(`Unsupported CIDR notation: '${text}' expands to multiple zones. Using only '${zones[0]}'.`);
  return zones[0] ?? '.';
}

function parseUpstreams(c: Controller, tokens: readonly Token[]): Upstream[] {
  const upstreams: Upstream[] = [];
  const seen = new Set<string>();
  for (const token of tokens) {
    let parsed: Upstream[];
    try {
      parsed = parseUpstream(token.text);
    } catch (error) {
      if (error instanceof UpstreamError) throw errorAt(token, error.message);
      throw error;
    }
    for (const upstream of parsed) {
      const key = `${upstream.transport}://${upstream.address}`;
      if (seen.has(key)) continue;
      seen.add(key);
      upstreams.push(upstream);
    }
  }
  if (upstreams.length > MAX_UPSTREAMS) throw c.error(`more than ${MAX_UPSTREAMS} TOs configured: ${upstreams.length}`);
  if (upstreams.length === 0) throw c.error('no valid upstream addresses found');
  return upstreams;
}

/** Options that are a bare word, by name: the word sets the field. */
const switches = new Map<string, 'forceTcp' | 'preferUdp' | 'nextOnNodata' | 'failfastAllUnhealthyUpstreams'>([
  ['force_tcp', 'forceTcp'],
  ['prefer_udp', 'preferUdp'],
  ['next_on_nodata', 'nextOnNodata'],
  ['failfast_all_unhealthy_upstreams', 'failfastAllUnhealthyUpstreams'],
]);

/** Options that take one non-negative integer, by name. */
const counts = new Map<string, 'maxIdleConns' | 'maxFails' | 'maxConnectAttempts' | 'maxConcurrent'>([
  ['max_idle_conns', 'maxIdleConns'],
  ['max_fails', 'maxFails'],
  ['max_connect_attempts', 'maxConnectAttempts'],
  ['max_concurrent', 'maxConcurrent'],
]);

/** Reads one `forward` stanza; the dispenser stands on the directive name. */
function parseStanza(c: Controller): ForwardOptions {
  if (!c.nextArg()) throw c.argError();
  const from = parseFrom(c);
  const toTokens = c.remainingArgTokens();
  if (toTokens.length === 0) throw c.argError();
  const upstreams = parseUpstreams(c, toTokens);
  const options = {
    from,
    upstreams,
    except: [] as string[],
    forceTcp: false,
    preferUdp: false,
    expireMs: defaultExpireMs,
    maxAgeMs: 0,
    maxIdleConns: 0,
    readTimeoutMs: defaultReadTimeoutMs,
    maxFails: defaultMaxFails,
    maxConnectAttempts: -1,
    healthCheckIntervalMs: defaultHealthCheckIntervalMs,
    healthCheckRecursionDesired: true,
    healthCheckDomain: '.',
    tls: undefined as TlsFiles | undefined,
    tlsServerName: undefined as string | undefined,
    policy: 'random' as Policy,
    maxConcurrent: 0,
    next: [] as number[],
    nextOnNodata: false,
    failover: [] as number[],
    failfastAllUnhealthyUpstreams: false,
    dohMethod: 'POST' as 'GET' | 'POST',
    sourceAddress: undefined as string | undefined,
  };
  let maxAgeToken: Token | undefined;
  while (c.nextBlock()) {
    const flag = switches.get(c.val());
    if (flag !== undefined) {
      options[flag] = noArgs(c);
      continue;
    }
    const count = counts.get(c.val());
    if (count !== undefined) {
      options[count] = integer(c, c.val());
      continue;
    }
    switch (c.val()) {
      case 'except': {
        const names = c.remainingArgs();
        if (names.length === 0) throw c.argError();
        // CoreDNS's `NormalizeExact`: a CIDR expands, a name that cannot be read is skipped.
        options.except.push(...zonesFromArgs(c, names, { ignoreInvalid: true }));
        break;
      }
      case 'expire':
        options.expireMs = duration(c, 'expire');
        break;
      case 'max_age':
        options.maxAgeMs = duration(c, 'max_age');
        maxAgeToken = c.token();
        break;
      case 'read_timeout':
        options.readTimeoutMs = duration(c, 'read_timeout');
        if (options.readTimeoutMs === 0) throw c.error('read_timeout must be greater than 0');
        break;
      case 'health_check': {
        const hc = parseHealthCheck(c);
        options.healthCheckIntervalMs = hc.intervalMs;
        options.healthCheckRecursionDesired = hc.recursionDesired;
        options.healthCheckDomain = hc.domain;
        break;
      }
      case 'tls':
        options.tls = parseTls(c);
        break;
      case 'tls_servername':
        options.tlsServerName = arg(c);
        break;
      case 'policy': {
        const policy = arg(c);
        if (policy !== 'random' && policy !== 'round_robin' && policy !== 'sequential') throw c.error(`unknown policy '${policy}'`);
        options.policy = policy;
        break;
      }
      case 'next':
        options.next.push(...rcodes(c, 'next'));
        break;
      case 'failover':
        options.failover.push(...rcodes(c, 'failover'));
        break;
      case 'doh_method': {
        const method = arg(c).toUpperCase();
        if (method !== 'GET' && method !== 'POST') throw c.error('doh_method must be either POST or GET');
        options.dohMethod = method;
        break;
      }
      case 'source_address':
        options.sourceAddress = arg(c);
        if (isIP(options.sourceAddress) === 0) throw c.error(`source_address: invalid IP address '${options.sourceAddress}'`);
        if (c.nextArg()) throw c.argError();
        break;
      default:
        throw c.error(`unknown property '${c.val()}'`);
    }
  }
  if (maxAgeToken !== undefined && options.maxAgeMs !== 0 && options.maxAgeMs < options.expireMs) {
    throw errorAt(maxAgeToken, 'max_age must be greater than or equal to expire');
  }
  if (options.tlsServerName !== undefined) {
    const clash = upstreams.find((u) => u.serverName !== undefined);
    if (clash) throw c.error(`tls_servername conflicts with the server name of upstream 'tls://${clash.host}%${clash.serverName}'`);
  }
  // The default cap is two tries per upstream (CoreDNS's plugin/forward).
  if (options.maxConnectAttempts < 0) options.maxConnectAttempts = 2 * upstreams.length;
  return options;
}

/**
 * Reads every `forward` line of the block into options, in file order. Pure apart from reading
 * the files named (resolv.conf, TLS material): the setup table test calls it directly.
 */
export function parseForward(c: Controller): ForwardOptions[] {
  const all: ForwardOptions[] = [];
  while (c.next()) all.push(parseStanza(c));
  return all;
}

/** The process's forward metrics: every block and every reload counts in the same objects. */
const ForwardMetricsKey = defineShared<ForwardMetrics>('forward/metrics');

/** Parses, creates one {@link Forward} per line, and chains them. Sockets open on first use. */
export function setupWith(runtime: Partial<ForwardRuntime> = {}): (c: Controller) => void {
  return (c: Controller): void => {
    const all = parseForward(c);
    if (c.validating) return;
    const metrics = c.shared(ForwardMetricsKey, () => createForwardMetrics(c.registry));
    const resolved = resolveRuntime(runtime);
    // The block's dnstap sinks (CoreDNS's SetTapPlugin): a live list, complete from onStartup on.
    const taps = c.use(DnstapSinks);
    const forwards = all.map(
      (options) => new Forward(options, options.upstreams.map((u) => new Proxy(u, options, metrics, resolved.probeTimeoutMs)), metrics, c.log, resolved, taps),
    );
    for (const forward of forwards) resolved.onForward?.(forward);
    c.onStartup(() => {
      for (const forward of forwards) forward.start();
    });
    c.onShutdown(() => {
      for (const forward of forwards) forward.stop();
    });
    c.addHandler((next) => {
      for (let i = forwards.length - 1; i >= 0; i--) {
        const forward = forwards[i] as Forward;
        forward.next = forwards[i + 1] ?? next;
      }
      // parseForward read at least one line, so there is a first forward.
      return forwards[0] as Forward;
    });
  };
}

/** The `forward` directive's setup with production timing. */
export const setup: (c: Controller) => void = setupWith();
