/**
 * Address rules: which endpoint addresses may be served (docs/compatibility.md, "Inputs"), the host name an endpoint
 * without one gets (the dashed address, Lighthouse #1728), and the reverse (PTR) name of an address.
 */
import { isIP } from 'node:net';

/** Parses an IPv4 address into its four bytes, or undefined. */
export function ipv4Bytes(text: string): Uint8Array | undefined {
  const out = new Uint8Array(4);
  return parseIpv4(text, out, 0) ? out : undefined;
}

/**
 * Writes the four bytes of a dotted-quad IPv4 address at `offset`; false (nothing meaningful
 * written) when `text` is not one. Accepts exactly what `net.isIP` calls IPv4 (no leading zeros,
 * no spaces), without its regular expression and allocations: every answer built and every
 * endpoint stored goes through here.
 */
export function parseIpv4(text: string, out: Uint8Array, offset: number): boolean {
  const length = text.length;
  if (length < 7 || length > 15) return false;
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= length; i++) {
    const c = i === length ? 0x2e : text.charCodeAt(i);
    if (c === 0x2e) {
      if (digits === 0 || part > 3) return false;
      out[offset + part++] = value;
      value = 0;
      digits = 0;
      continue;
    }
    if (c < 0x30 || c > 0x39) return false;
    // A leading zero is only allowed alone ("0", not "01").
    if (digits === 1 && value === 0) return false;
    value = value * 10 + (c - 0x30);
    if (++digits > 3 || value > 255) return false;
  }
  return part === 4;
}

/** Parses an IPv6 address (including an embedded IPv4 tail) into 16 bytes, or undefined. */
export function ipv6Bytes(text: string): Uint8Array | undefined {
  if (isIP(text) !== 6) return undefined;
  const zone = text.indexOf('%');
  const address = zone >= 0 ? text.slice(0, zone) : text;
  const [head = '', tail = ''] = address.split('::');
  const double = address.includes('::');
  const groups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const v4 = group.split('.').map(Number);
      return [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    });
  };
  const h = groups(head);
  const t = double ? groups(tail) : [];
  const all = [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/**
 * docs/compatibility.md, "Inputs": only routable unicast addresses are served. Unspecified, loopback,
 * link-local, multicast and the IPv4 broadcast address are dropped.
 */
export function isPermittedAddress(text: string): boolean {
  const v4 = ipv4Bytes(text);
  if (v4) {
    const [a = 0, b = 0] = v4;
    if (v4.every((x) => x === 0)) return false;
    if (a === 127) return false;
    if (a === 169 && b === 254) return false;
    if (a >= 224 && a <= 239) return false;
    if (v4.every((x) => x === 255)) return false;
    return true;
  }
  const v6 = ipv6Bytes(text);
  if (!v6) return false;
  if (v6.every((x) => x === 0)) return false;
  if (v6.slice(0, 15).every((x) => x === 0) && v6[15] === 1) return false;
  if (v6[0] === 0xfe && (v6[1]! & 0xc0) === 0x80) return false;
  if (v6[0] === 0xff) return false;
  // An IPv4-mapped address is judged as the IPv4 address it carries.
  if (v6.slice(0, 10).every((x) => x === 0) && v6[10] === 0xff && v6[11] === 0xff) {
    return isPermittedAddress(Array.from(v6.slice(12)).join('.'));
  }
  return true;
}

/**
 * Lighthouse's host name for an endpoint without `hostname`: the address with `.` or `:` replaced
 * by `-` (`10.1.2.3` → `10-1-2-3`, `fc00:2001::6757` → `fc00-2001--6757`).
 */
export function dashedHostname(ip: string): string {
  return ip.replace(/[.:]/g, '-');
}

/** The PTR owner of an address: `3.2.1.10.in-addr.arpa.` or the nibble form under `ip6.arpa.`. */
export function reverseName(ip: string): string | undefined {
  const v4 = ipv4Bytes(ip);
  if (v4) return `${v4[3]}.${v4[2]}.${v4[1]}.${v4[0]}.in-addr.arpa.`;
  const v6 = ipv6Bytes(ip);
  if (!v6) return undefined;
  const nibbles: string[] = [];
  for (let i = 15; i >= 0; i--) {
    const byte = v6[i]!;
    nibbles.push((byte & 0xf).toString(16), (byte >> 4).toString(16));
  }
  return `${nibbles.join('.')}.ip6.arpa.`;
}
