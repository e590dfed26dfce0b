/**
 * Server block keys (docs/compatibility.md, "Server block keys"): `[dns://|tls://|https://]zone[:port]`,
 * reverse zones from CIDRs, normalisation.
 */
import { isIP } from 'node:net';
import { parseIp } from './ip.js';
import type { KeyTransport, ServerKey } from './plugin.js';

const unsupportedSchemes = ['grpc://', 'quic://', 'https3://'];
/** The default port of each served scheme; `dns://` uses the caller's (`-dns.port`). */
const schemePorts: Readonly<Record<Exclude<KeyTransport, 'dns'>, number>> = { tls: 853, https: 443 };
const MAX_ZONE_LENGTH = 255;

/** Thrown for a key that cannot be served; the caller adds the key's position. */
export class KeyError extends Error {}

/** Lower-cases and fully qualifies a name: `Example.ORG` → `example.org.` */
export function normalizeZone(zone: string): string {
  const lower = zone.toLowerCase();
  return lower.endsWith('.') ? lower : lower + '.';
}

/**
 * Parses one key into one or more server keys (a CIDR expands to several reverse zones).
 * `defaultPort` applies when the key names none.
 */
export function parseServerKey(key: string, defaultPort: number): ServerKey[] {
  for (const scheme of unsupportedSchemes) {
    if (key.startsWith(scheme)) {
      throw new KeyError(`${scheme} server blocks are not supported yet, in '${key}': only dns://, tls:// and https:// are served`);
    }
  }
  let transport: KeyTransport = 'dns';
  let rest = key;
  let port = defaultPort;
  for (const scheme of ['dns', 'tls', 'https'] as const) {
    if (key.startsWith(`${scheme}://`)) {
      transport = scheme;
      rest = key.slice(scheme.length + 3);
      if (scheme !== 'dns') port = schemePorts[scheme];
    }
  }
  const colon = rest.lastIndexOf(':');
  if (colon >= 0) {
    const after = rest.slice(colon + 1);
    if (after === '') throw new KeyError(`error inspecting server blocks: expecting data after last colon: "${key}"`);
    if (/^\d+$/.test(after)) {
      port = Number(after);
      if (port > 65535) throw new KeyError(`invalid port '${after}' in '${key}': must be 0 to 65535`);
      rest = rest.slice(0, colon);
    }
  }
  const zones = reverseZones(rest) ?? [checkZone(rest)];
  return zones.map((zone) => ({ transport, zone, port, canonical: `${transport}://${zone}:${port}` }));
}

function checkZone(zone: string): string {
  if (zone === '') throw new KeyError('zone is not a valid domain name: ');
  if (zone.length > MAX_ZONE_LENGTH) throw new KeyError(`zone is not a valid domain name: ${zone}`);
  return normalizeZone(zone);
}

/**
 * Reverse zones for a CIDR, or undefined when `text` is not one. IPv4 steps by 8 bits and IPv6
 * by 4 (nibbles); a prefix between steps is split at the next longer boundary (docs/compatibility.md, "Server block keys").
 */
export function reverseZones(text: string): string[] | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  const family = isIP(address);
  if (family === 0 || !/^\d+$/.test(bitsText)) {
    if (text.startsWith(':') || (text.startsWith('0') && text.includes(':'))) throw new KeyError(`invalid CIDR ${text}`);
    return undefined;
  }
  const bits = Number(bitsText);
  const width = family === 4 ? 32 : 128;
  if (bits > width) throw new KeyError(`invalid CIDR ${text}`);
  const step = family === 4 ? 8 : 4;
  const value = ipToBigInt(address);
  const boundary = Math.ceil(bits / step) * step;
  const hostBits = BigInt(width - bits);
  const network = (value >> hostBits) << hostBits;
  const count = 1 << (boundary - bits);
  const zones: string[] = [];
  for (let i = 0; i < count; i++) {
    const subnet = network + (BigInt(i) << BigInt(width - boundary));
    zones.push(family === 4 ? ipv4Reverse(subnet, boundary) : ipv6Reverse(subnet, boundary));
  }
  return zones;
}

/** An address (as `isIP` accepted it; an IPv6 zone is ignored) as one number. */
function ipToBigInt(address: string): bigint {
  const percent = address.indexOf('%');
  const bytes = parseIp(percent >= 0 ? address.slice(0, percent) : address) ?? new Uint8Array(0);
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

function ipv4Reverse(network: bigint, bits: number): string {
  const labels: string[] = [];
  for (let i = 0; i < bits / 8; i++) labels.unshift(String((network >> BigInt(24 - i * 8)) & 0xffn));
  return [...labels, 'in-addr', 'arpa', ''].join('.');
}

function ipv6Reverse(network: bigint, bits: number): string {
  const labels: string[] = [];
  for (let i = 0; i < bits / 4; i++) labels.unshift(((network >> BigInt(124 - i * 4)) & 0xfn).toString(16));
  return [...labels, 'ip6', 'arpa', ''].join('.');
}

/** Whether `name` is `zone` or below it; both lower-case and fully qualified. */
export function isSubdomain(name: string, zone: string): boolean {
  if (zone === '.') return true;
  if (name.length < zone.length) return false;
  if (name.length === zone.length) return name === zone;
  return name.endsWith(zone) && name.charCodeAt(name.length - zone.length - 1) === 0x2e;
}

/** The longest of `zones` that `name` falls under, or undefined (CoreDNS's `plugin.Zones.Matches`). */
export function matchZone(zones: readonly string[], name: string): string | undefined {
  let best: string | undefined;
  for (const zone of zones) {
    if (isSubdomain(name, zone) && (best === undefined || zone.length > best.length)) best = zone;
  }
  return best;
}

/** CoreDNS's metrics `server` label of a listener: `dns://:53`, `dns://[::1]:1053`, `tls://:853`. */
export function serverLabel(host: string, port: number, transport: KeyTransport = 'dns'): string {
  return `${transport}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
