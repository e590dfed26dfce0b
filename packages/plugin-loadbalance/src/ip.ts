/**
 * IP addresses as bytes, the way Go's `net.IP` compares them: an IPv4 address and its
 * IPv4-mapped IPv6 form are the same address (`To4`), and a CIDR contains only addresses of its
 * own length (`IPNet.Contains`).
 */

/**
 * Parses an address as Go's `net.ParseIP` does (no zone, no leading zeros in IPv4): 4 bytes for
 * IPv4 and IPv4-mapped IPv6, 16 bytes otherwise; null when it is not an address.
 */
export function parseIp(text: string): Uint8Array | null {
  const raw = text.includes(':') ? parseIpv6(text) : parseIpv4(text);
  return raw === null ? null : to4(raw);
}

/** The 4-byte form of an IPv4-mapped 16-byte address; other addresses unchanged. */
export function to4(ip: Uint8Array): Uint8Array {
  if (ip.length !== 16) return ip;
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return ip;
  return ip[10] === 0xff && ip[11] === 0xff ? ip.subarray(12) : ip;
}

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part[0] === '0')) return null;
    const value = Number(part);
    if (value > 255) return null;
    out[i] = value;
  }
  return out;
}

function parseIpv6(text: string): Uint8Array | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const parts = half.split(':');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (i === parts.length - 1 && part.includes('.')) {
        const v4 = parseIpv4(part);
        if (v4 === null) return null;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return null;
        out.push(parseInt(part, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    out[i * 2] = all[i]! >> 8;
    out[i * 2 + 1] = all[i]! & 0xff;
  }
  return out;
}

/** A network from `prefer CIDR`: Go's `net.ParseCIDR`, network bytes and mask length. */
export interface Subnet {
  readonly text: string;
  readonly network: Uint8Array;
  readonly bits: number;
}

/** Parses a CIDR; throws Go's `invalid CIDR address: X`. */
export function parseCidr(text: string): Subnet {
  const invalid = new Error(`invalid CIDR address: ${text}`);
  const slash = text.indexOf('/');
  if (slash < 0) throw invalid;
  const address = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  // ParseCIDR keeps the textual family: `::ffff:10.0.0.0/104` is a 16-byte network.
  const network = address.includes(':') ? parseIpv6(address) : parseIpv4(address);
  if (network === null || !/^\d{1,3}$/.test(bitsText)) throw invalid;
  const bits = Number(bitsText);
  if (bits > network.length * 8) throw invalid;
  for (let i = 0; i < network.length; i++) network[i]! &= maskByte(bits, i);
  return { text, network, bits };
}

function maskByte(bits: number, index: number): number {
  const left = bits - index * 8;
  return left >= 8 ? 0xff : left <= 0 ? 0 : (0xff << (8 - left)) & 0xff;
}

/** `IPNet.Contains`: `ip` in its 4-byte form when it has one, same length as the network. */
export function contains(subnet: Subnet, ip: Uint8Array): boolean {
  const { network, bits } = subnet;
  if (ip.length !== network.length) return false;
  for (let i = 0; i < network.length; i++) {
    const mask = maskByte(bits, i);
    if (mask === 0) return true;
    if ((ip[i]! & mask) !== network[i]) return false;
  }
  return true;
}

/** A map key for an address that equal addresses share. */
export function ipKey(ip: Uint8Array): string {
  return String.fromCharCode(...ip);
}
