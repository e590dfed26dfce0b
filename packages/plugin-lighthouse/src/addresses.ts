/**
 * Address rules: which endpoint addresses may be served (docs/compatibility.md, "Inputs"), the host name an endpoint
 * without one gets (the dashed address, Lighthouse #1728), and the reverse (PTR) name of an address.
 */
import { parseIp } from '@foghorn/core/wire';

/** The 4 or 16 bytes of an address; an IPv6 zone (`fe80::1%eth0`, which Kubernetes accepts) is cut off. */
function ipBytes(text: string): Uint8Array | null {
  const percent = text.indexOf('%');
  return parseIp(percent >= 0 && text.includes(':') ? text.slice(0, percent) : text);
}

/**
 * docs/compatibility.md, "Inputs": only routable unicast addresses are served. Unspecified, loopback,
 * link-local, multicast and the IPv4 broadcast address are dropped.
 */
export function isPermittedAddress(text: string): boolean {
  const ip = ipBytes(text);
  if (ip === null) return false;
  if (ip.length === 4) {
    const v4 = ip;
    const [a = 0, b = 0] = v4;
    if (v4.every((x) => x === 0)) return false;
    if (a === 127) return false;
    if (a === 169 && b === 254) return false;
    if (a >= 224 && a <= 239) return false;
    if (v4.every((x) => x === 255)) return false;
    return true;
  }
  const v6 = ip;
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
  const bytes = ipBytes(ip);
  if (bytes === null) return undefined;
  if (bytes.length === 4) return `${bytes[3]}.${bytes[2]}.${bytes[1]}.${bytes[0]}.in-addr.arpa.`;
  const v6 = bytes;
  const nibbles: string[] = [];
  for (let i = 15; i >= 0; i--) {
    const byte = v6[i]!;
    nibbles.push((byte & 0xf).toString(16), (byte >> 4).toString(16));
  }
  return `${nibbles.join('.')}.ip6.arpa.`;
}
