/**
 * IP addresses and networks as fixed-width words, so matching a client against a network is a
 * few integer ANDs instead of string or BigInt work (*acl*'s rules, *view*'s `incidr`). The
 * accepted syntax follows Go's `net.ParseCIDR`: dotted IPv4 without leading zeros, IPv6 with at
 * most one `::` (standing for at least one zero group) and an optional dotted IPv4 tail, no zone
 * (`%eth0`) in a network.
 */
import { parseIp } from './ip.js';

/** An address: one 32-bit word for IPv4, four for IPv6 (most significant first). */
export type AddressWords = Uint32Array;

/** A network from a `net` token. */
export interface Network {
  /** The CIDR text it was parsed from. */
  readonly text: string;
  /** 4 or 6. */
  readonly family: 4 | 6;
  /** Prefix length in bits. */
  readonly bits: number;
  /** The network address with host bits cleared (Go masks `192.168.1.5/24` to `192.168.1.0`). */
  readonly words: AddressWords;
  /** Per-word masks, the same length as `words`. */
  readonly masks: AddressWords;
}

/** Go's `dtoi` gives up at this many digits' worth of value; any longer prefix is invalid anyway. */
const maxPrefixDigits = 3;

/** Parses an IP address (no zone) into words, or undefined when it is not one (Go's rules: core's `parseIp`). */
export function parseAddress(text: string): AddressWords | undefined {
  const ip = parseIp(text);
  if (ip === null) return undefined;
  const words = new Uint32Array(ip.length >> 2);
  for (let i = 0; i < words.length; i++) words[i] = ((ip[4 * i]! << 24) | (ip[4 * i + 1]! << 16) | (ip[4 * i + 2]! << 8) | ip[4 * i + 3]!) >>> 0;
  return words;
}

/** `::ffff:0:0/96` holds IPv4 addresses written as IPv6. */
function isV4Mapped(words: AddressWords): boolean {
  return words[0] === 0 && words[1] === 0 && words[2] === 0xffff;
}

/**
 * The client's address as rules see it. A zone (`fe80::1%eth0`) is cut off, and an IPv4-mapped
 * IPv6 address counts as IPv4, as Go's `net.IP.To4` makes it for CoreDNS.
 */
export function parseClientAddress(text: string): AddressWords | undefined {
  const percent = text.indexOf('%');
  const words = parseAddress(percent >= 0 ? text.slice(0, percent) : text);
  if (words !== undefined && words.length === 4 && isV4Mapped(words)) return Uint32Array.of(words[3]!);
  return words;
}

/**
 * Go's `net.ParseCIDR`: `ADDRESS/BITS`, the host bits cleared (`192.168.1.5/24` is
 * `192.168.1.0/24`); undefined when Go would refuse it.
 */
export function parseNetwork(text: string): Network | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const addressText = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  if (!/^\d+$/.test(bitsText) || bitsText.length > maxPrefixDigits) return undefined;
  const words = parseAddress(addressText);
  if (words === undefined) return undefined;
  const bits = Number(bitsText);
  const family = words.length === 1 ? 4 : 6;
  if (bits > words.length * 32) return undefined;
  const masks = new Uint32Array(words.length);
  for (let i = 0; i < words.length; i++) {
    const inWord = Math.min(32, Math.max(0, bits - i * 32));
    // `-1 << 32` is `-1` in JavaScript, so a whole word is spelled out.
    masks[i] = inWord === 0 ? 0 : inWord === 32 ? 0xffffffff : (-1 << (32 - inWord)) >>> 0;
    words[i] = (words[i]! & masks[i]!) >>> 0;
  }
  return { text, family, bits, words, masks };
}

/** Whether `address` (from {@link parseClientAddress}) is inside `network`; families never mix. */
export function networkContains(network: Network, address: AddressWords): boolean {
  const { words, masks } = network;
  if (address.length !== words.length) return false;
  for (let i = 0; i < words.length; i++) {
    if (((address[i]! & masks[i]!) >>> 0) !== words[i]) return false;
  }
  return true;
}
