/**
 * Addresses and CIDRs the way Go's `net.IP` compares them: an IPv4 address and its IPv4-mapped
 * IPv6 form are the same address (`To4`), and a CIDR contains only addresses of its own length
 * (`IPNet.Contains`).
 */
import { parseCidr as parseCidrBytes, parseIp as parseIpBytes, to4 } from '@foghorn/core/wire';

/**
 * Parses an address as Go's `net.ParseIP` does, in its 4-byte form for IPv4 and IPv4-mapped
 * IPv6 (so equal addresses have equal bytes); null when it is not an address.
 */
export function parseIp(text: string): Uint8Array | null {
  const raw = parseIpBytes(text);
  return raw === null ? null : to4(raw);
}

/** A network from `prefer CIDR`: Go's `net.ParseCIDR`, network bytes and mask length. */
export interface Subnet {
  readonly text: string;
  readonly network: Uint8Array;
  readonly bits: number;
}

/** Parses a CIDR; throws Go's `invalid CIDR address: X`. */
export function parseCidr(text: string): Subnet {
  return { text, ...parseCidrBytes(text) };
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
