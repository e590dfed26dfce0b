/**
 * SkyDNS's service message and its paths (CoreDNS `plugin/etcd/msg`): a JSON value under a key
 * that is the DNS name reversed, `service.staging.skydns.local.` at `/skydns/local/skydns/staging/service`.
 */
import { fqdn, parseIp, to4 } from '@foghorn/core/wire';
import { TYPE_A, TYPE_AAAA, TYPE_CNAME, TYPE_TXT } from '@foghorn/core';

/** One service as SkyDNS stores it: the rdata of an SRV record, with a twist (Host may be an address). */
export interface Service {
  /** A name (CNAME, SRV/MX target) or an IPv4/IPv6 address (A/AAAA). */
  host: string;
  port: number;
  priority: number;
  weight: number;
  text: string;
  /** An MX record: `priority` becomes the preference. */
  mail: boolean;
  ttl: number;
  /** Labels stripped from the left of a synthesised target name. */
  targetStrip: number;
  /** Services of one group are answered together (see {@link group}). */
  group: string;
  /** The etcd key the service was read from. */
  key: string;
}

/** Go's `encoding/json` kinds of the fields SkyDNS reads; other fields are ignored. */
const fields: Record<string, 'string' | 'int' | 'uint32' | 'bool'> = {
  host: 'string',
  port: 'int',
  priority: 'int',
  weight: 'int',
  text: 'string',
  mail: 'bool',
  ttl: 'uint32',
  targetstrip: 'int',
  group: 'string',
};

/**
 * The service in the JSON value at `key`, with Go's zero values for missing fields and Go's
 * errors for a value that is not an object or a field of the wrong type (a SERVFAIL, as in CoreDNS).
 */
export function parseService(key: string, json: string): Service {
  const v = JSON.parse(json) as unknown;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new Error(`json: cannot unmarshal ${Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v} into Go value of type msg.Service`);
  }
  const o = v as Record<string, unknown>;
  for (const [name, value] of Object.entries(o)) {
    const kind = fields[name.toLowerCase()];
    if (kind === undefined || value === null) continue;
    const ok =
      kind === 'string' ? typeof value === 'string'
      : kind === 'bool' ? typeof value === 'boolean'
      : typeof value === 'number' && Number.isInteger(value) && (kind === 'int' ? Number.isSafeInteger(value) : value >= 0 && value <= 0xffffffff);
    if (ok) continue;
    const what = typeof value === 'object' ? (Array.isArray(value) ? 'array' : 'object') : typeof value === 'number' ? `number ${value}` : typeof value;
    throw new Error(`json: cannot unmarshal ${what} into Go struct field Service.${name.toLowerCase()} of type ${kind}`);
  }
  const get = (name: string): unknown => {
    for (const [k, value] of Object.entries(o)) if (k.toLowerCase() === name) return value;
    return undefined;
  };
  return {
    host: str(get('host')),
    port: num(get('port')),
    priority: num(get('priority')),
    weight: num(get('weight')),
    text: str(get('text')),
    mail: get('mail') === true,
    ttl: num(get('ttl')),
    targetStrip: num(get('targetstrip')),
    group: str(get('group')),
    key,
  };
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** The labels of `name` without the root, as miekg/dns's `SplitDomainName`. */
function labels(name: string): string[] {
  const trimmed = name.endsWith('.') ? name.slice(0, -1) : name;
  return trimmed === '' ? [] : trimmed.split('.');
}

/** Go's `path.Join` of rooted segments: one slash between parts, `.` and `..` resolved, no trailing slash. */
function joinPath(parts: readonly string[]): string {
  const out: string[] = [];
  for (const part of parts.join('/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

/** The etcd key of `name` under `prefix`: `service.staging.skydns.local.` → `/skydns/local/skydns/staging/service`. */
export function path(name: string, prefix: string): string {
  return joinPath([prefix, ...labels(name).reverse()]);
}

/**
 * As {@link path}, but a name with a wildcard label (`*` or `any`) is cut before the first one,
 * and `star` says so: the subtree is read and matched label by label (CoreDNS's `PathWithWildcard`).
 */
export function pathWithWildcard(name: string, prefix: string): { path: string; star: boolean } {
  const reversed = labels(name).reverse();
  const at = reversed.findIndex((label) => label === '*' || label === 'any');
  if (at < 0) return { path: joinPath([prefix, ...reversed]), star: false };
  return { path: joinPath([prefix, ...reversed.slice(0, at)]), star: true };
}

/** The name of a key, the first path segment (the prefix) dropped: CoreDNS's `msg.Domain`. */
export function domain(key: string): string {
  const parts = key.split('/');
  if (parts[parts.length - 1] === '') parts.pop();
  const name = parts.slice(2).reverse();
  return name.length === 0 ? '.' : `${name.join('.')}.`;
}

/** What Host holds: an address (A, AAAA with its bytes), or a name (CNAME), or nothing but text (TXT). */
export function hostType(s: Service): { type: number; ip: Uint8Array | null } {
  const ip = parseIp(s.host);
  if (ip === null) return { type: s.text.length === 0 ? TYPE_CNAME : TYPE_TXT, ip: null };
  const v4 = to4(ip);
  return v4.length === 4 ? { type: TYPE_A, ip: v4 } : { type: TYPE_AAAA, ip };
}

/** `name` without its `count` leftmost labels; the whole name when it has no more (CoreDNS's `targetStrip`). */
export function targetStrip(name: string, count: number): string {
  if (count <= 0) return name;
  const parts = labels(name);
  if (count >= parts.length) return name;
  return fqdn(parts.slice(count).join('.'));
}

/** The target of an SRV, MX or NS record made from `s`. */
export function targetOf(s: Service): string {
  return targetStrip(fqdn(s.host), s.targetStrip);
}

/**
 * TXT text in strings of at most 255 bytes (CoreDNS's `split255`, which counts bytes and, for a
 * length that is a multiple of 255, ends with an empty string).
 */
export function split255(text: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length < 255) return [bytes];
  const out: Buffer[] = [];
  for (let p = 0; ; p += 255) {
    if (p + 255 > bytes.length) {
      out.push(bytes.subarray(p));
      return out;
    }
    out.push(bytes.subarray(p, p + 255));
  }
}

/**
 * CoreDNS's `msg.Group`: the shortest keys' group attribute (when they agree) selects the
 * services of that group and those without one; a disagreement on the shortest level, or no
 * group there, returns every service.
 */
export function group(sx: readonly Service[]): readonly Service[] {
  if (sx.length === 0) return sx;
  let chosen = sx[0]!.group;
  let slashes = slashCount(sx[0]!.key);
  const lengths = sx.map((s) => slashCount(s.key));
  for (const [i, s] of sx.entries()) {
    if (lengths[i]! < slashes) {
      if (s.group === '') break;
      slashes = lengths[i]!;
      chosen = s.group;
    }
  }
  if (chosen === '') return sx;
  const out: Service[] = [];
  for (const [i, s] of sx.entries()) {
    if (s.group === '') {
      out.push(s);
      continue;
    }
    if (lengths[i] === slashes && s.group !== chosen) return sx;
    if (s.group === chosen) out.push(s);
  }
  return out;
}

function slashCount(key: string): number {
  let n = 0;
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) === 0x2f) n++;
  return n;
}
